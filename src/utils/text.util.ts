/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ANY_SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The string with every lone surrogate replaced by U+FFFD, as UTF-8 encoding (and so the
 * database) would store it. Strings without surrogates, nearly all of them, are returned as is.
 */
export function toWellFormed(text: string): string {
  return ANY_SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}
