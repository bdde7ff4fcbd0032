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

/**
 * Why a client string holding U+0000 is refused, wherever it appears (body values and keys,
 * search values, regular expressions, path identifiers): JSON allows the character, but
 * PostgreSQL's JSONB (FerretDB's main backend) cannot store it and MongoDB refuses it in keys and
 * patterns, so every engine answers the same 400 naming the place.
 */
export const NUL_CHARACTER_MESSAGE = 'must not contain the NUL character (U+0000)';

/** Whether `text` holds U+0000 (see NUL_CHARACTER_MESSAGE). */
export function hasNulCharacter(text: string): boolean {
  return text.includes('\u0000');
}
