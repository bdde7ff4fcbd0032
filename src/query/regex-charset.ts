/** Sets of characters, as the cost rules of `regex-complexity.ts` compare them: ASCII as bits, the rest as one flag. */

/** What one character of input may be: ASCII as bits, plus whether anything beyond ASCII. */
export interface CharSet {
  ascii: bigint;
  other: boolean;
}

export const ALL_ASCII = (1n << 128n) - 1n;
export const ANY: CharSet = { ascii: ALL_ASCII, other: true };
const bits = (chars: string) => [...chars].reduce((set, c) => set | (1n << BigInt(c.charCodeAt(0))), 0n);
export const range = (from: number, to: number) => ((1n << BigInt(to + 1)) - 1n) & ~((1n << BigInt(from)) - 1n);
const DIGIT = range(48, 57);
const SPACE = bits(' \t\n\v\f\r');
const WORD = DIGIT | range(65, 90) | range(97, 122) | bits('_');
const LETTERS = range(65, 90) | range(97, 122);
export const ESCAPE_SETS: Record<string, CharSet> = {
  d: { ascii: DIGIT, other: false },
  s: { ascii: SPACE, other: false },
  w: { ascii: WORD, other: false },
  h: { ascii: bits(' \t'), other: true },
  v: { ascii: bits('\n\v\f\r'), other: true },
  D: { ascii: ALL_ASCII & ~DIGIT, other: true },
  S: { ascii: ALL_ASCII & ~SPACE, other: true },
  W: { ascii: ALL_ASCII & ~WORD, other: true },
  H: ANY,
  V: ANY,
  N: ANY,
  R: ANY,
  X: ANY,
  C: ANY,
};
export const LITERAL_ESCAPES: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, e: 27, a: 7 };

export const union = (a: CharSet, b: CharSet): CharSet => ({ ascii: a.ascii | b.ascii, other: a.other || b.other });
export const disjoint = (a: CharSet, b: CharSet) => (a.ascii & b.ascii) === 0n && !(a.other && b.other);
export const single = (code: number): CharSet => (code < 128 ? { ascii: 1n << BigInt(code), other: false } : { ascii: 0n, other: true });

/** Under `i`, letters match both cases (and `k`, `s` match the Kelvin sign and the long s). */
export function fold(set: CharSet): CharSet {
  const letters = set.ascii & LETTERS;
  if (letters === 0n) return set;
  return { ascii: set.ascii | ((letters & range(65, 90)) << 32n) | ((letters & range(97, 122)) >> 32n), other: true };
}
