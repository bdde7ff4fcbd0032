/**
 * Bounds the work one client `$regex` can cause on both kinds of engine: MongoDB's PCRE
 * backtracks (its work grows with the ways a pattern can match a text); FerretDB's Go regexp
 * (RE2) does not, but its work is compiled size × text length, whatever `maxTimeMS` says. The
 * pattern is read with PCRE's syntax (escapes, classes, groups, inline flags, lookarounds,
 * `\Q...\E`, `x` mode) and refused when:
 *
 * 1. it has backreferences, recursion or subroutine calls, conditionals, callouts or `(*VERB)`s,
 *    or cannot be parsed: a checker that reads a pattern otherwise than the database could be
 *    bypassed, so it fails closed;
 * 2. a count in `{n}`, `{n,}`, `{n,m}` is above {@link MAX_REGEX_REPEAT};
 * 3. a quantifier repeats a group that contains one (`(a+)+`, `(.{0,10})*`), unless it is `?` or
 *    an exact `{n}`, which write the group out once or n times;
 * 4. a quantifier other than `?` and `{n}` repeats a group whose alternatives can start with the
 *    same character (`(a|a)*`, `(a|ab)+`; `(a|b)+` and `(foo|bar)+` pass);
 * 5. its size is above {@link MAX_REGEX_SIZE} (RE2's cost): a character, class or `.` counts 1,
 *    `x{n,m}` counts x m times, `x{n,}` n times, `x*`, `x+` and `x?` once, assertions 0;
 * 6. it has more than {@link MAX_REGEX_UNBOUNDED} unbounded quantifiers (`*`, `+`, `{n,}`), or more
 *    than {@link MAX_REGEX_OVERLAPPING} that overlap their neighbours. `x*` is guarded when x is one
 *    character set that neither the character before it (or the start) nor the one after it (or
 *    the end, `$`) can match: `\d+\.\d+`, `^\s*foo\s*$`, `\w+\s+\w+`. Backtracking into a guarded one
 *    fails at once; two overlapping ones (`a.*b.*c`, `.*\s*x`) cost PCRE the cube of the length;
 * 7. it can match one stretch of text in more than {@link MAX_REGEX_CHOICES} ways (PCRE's cost):
 *    alternatives add up (one, when they start with distinct characters), optional parts and
 *    ranges multiply (`x?` 2, `x{2,9}` 8; 1 when the next character cannot be an x), and with an
 *    overlapping quantifier the size multiplies too: each character it gives back reruns the rest.
 *
 * Left to `maxTimeMS`: with one overlapping quantifier, PCRE's work grows with the square of a
 * string's length (`foo.*bar` on `foofoofoo...`). Measurements: BENCHMARKS.md.
 */

import { disjoint, union, type CharSet } from './regex-charset.js';
import { Parser, Refusal, type Node } from './regex-syntax.js';

/** Highest count in `{n}`, `{n,}` and `{n,m}`. */
export const MAX_REGEX_REPEAT = 100;
/** Largest pattern once counted repetitions are written out (rule 5). */
export const MAX_REGEX_SIZE = 50;
/** Most `*`, `+` and `{n,}` in one pattern. */
export const MAX_REGEX_UNBOUNDED = 8;
/** Most unbounded quantifiers that can trade characters with their neighbours (rule 6). */
export const MAX_REGEX_OVERLAPPING = 1;
/** Most ways to match one stretch of text (rule 7). */
export const MAX_REGEX_CHOICES = 32;

/** Why a pattern is refused: it is not a regular expression at all, or it is too costly to run. */
export interface RegexRefusal {
  kind: 'invalid' | 'costly';
  /** A short reason, for the client. */
  reason: string;
}

/**
 * `undefined` when `pattern` (with `$options` `flags`) is cheap enough to run, otherwise why not.
 * @example checkRegexCost('^acme', 'i') // undefined
 * @example checkRegexCost('(a+)+b') // { kind: 'costly', reason: 'nested quantifiers like (a+)+ are not allowed ...' }
 * @example checkRegexCost('[') // { kind: 'invalid', reason: 'missing ]' }
 */
export function checkRegexCost(pattern: string, flags = ''): RegexRefusal | undefined {
  const reason = costReason(pattern, flags);
  if (reason instanceof Refusal) return { kind: reason.invalid ? 'invalid' : 'costly', reason: reason.message };
  return reason === undefined ? undefined : { kind: 'costly', reason };
}

function costReason(pattern: string, flags: string): string | Refusal | undefined {
  try {
    const cost = measure(new Parser(pattern, flags).parse(), EDGE, END);
    if (cost.size > MAX_REGEX_SIZE) {
      return `the pattern is too large once repetitions are written out (${cost.size} > ${MAX_REGEX_SIZE}; x{n,m} counts m times)`;
    }
    if (cost.unbounded > MAX_REGEX_UNBOUNDED) return `at most ${MAX_REGEX_UNBOUNDED} unbounded quantifiers (*, +, {n,}) are allowed`;
    if (cost.overlapping > MAX_REGEX_OVERLAPPING) {
      return `at most ${MAX_REGEX_OVERLAPPING} *, + or {n,} may repeat characters that its neighbours can also match (a.*b.*c has two)`;
    }
    // Each character an overlapping `*` gives back can run the rest of the pattern again.
    const choices = cost.overlapping > 0 ? cost.choices * cost.size : cost.choices;
    if (choices > MAX_REGEX_CHOICES) {
      return (
        `the pattern can match the same text in too many ways (${choices} > ${MAX_REGEX_CHOICES}): optional parts, ranges and alternatives multiply, ` +
        `and so does the size when a .* or + overlaps its neighbours`
      );
    }
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

interface Cost {
  size: number;
  choices: number;
  unbounded: number;
  overlapping: number;
  quantified: boolean;
  alternation: boolean;
}

/**
 * What is next to an item: a known character set; `EDGE`, the start of the pattern or a `$`, which
 * no character can continue; `END`, the end of the pattern, where the match succeeds; or unknown.
 */
type Side = CharSet | typeof EDGE | typeof END | undefined;
const EDGE = 'edge';
const END = 'end';

const FREE: Cost = { size: 0, choices: 1, unbounded: 0, overlapping: 0, quantified: false, alternation: false };

function measure(node: Node, before: Side, after: Side): Cost {
  switch (node.kind) {
    case 'chars':
      return Object.assign({}, FREE, { size: 1 });
    case 'assert':
      return FREE;
    case 'look':
      return measure(node.body, undefined, undefined);
    case 'alt': {
      // Alternatives that start with distinct characters: at most one of them can match here.
      const firsts = node.branches.map((b) => boundary(b, 1));
      const distinct = firsts.every((set, i) => set !== undefined && firsts.slice(i + 1).every((other) => other !== undefined && disjoint(set, other)));
      return node.branches
        .map((b) => measure(b, before, after))
        .reduce((a, b) =>
          Object.assign(add(a, b), {
            choices: distinct ? Math.max(a.choices, b.choices) : a.choices + b.choices,
            alternation: a.alternation || b.alternation || !distinct,
          }),
        );
    }
    case 'seq':
      return measureSequence(
        node.items.flatMap(function flat(item): Node[] {
          return item.kind === 'seq' ? item.items.flatMap(flat) : [item];
        }),
        before,
        after,
      );
    case 'repeat':
      return measureRepeat(node.body, node.min, node.max, before, after);
  }
}

function add(a: Cost, b: Cost): Cost {
  return {
    size: a.size + b.size,
    choices: a.choices * b.choices,
    unbounded: a.unbounded + b.unbounded,
    overlapping: a.overlapping + b.overlapping,
    quantified: a.quantified || b.quantified,
    alternation: a.alternation || b.alternation,
  };
}

function measureSequence(items: Node[], before: Side, after: Side): Cost {
  return items.reduce((cost, item, i) => add(cost, measure(item, neighbour(items, i, -1, before), neighbour(items, i, 1, after))), FREE);
}

/** The character next to `items[i]` on one side, skipping assertions (they only add failures). */
function neighbour(items: Node[], i: number, step: 1 | -1, outside: Side): Side {
  for (let j = i + step; j >= 0 && j < items.length; j += step) {
    const item = items[j];
    if (item.kind === 'assert' && item.end && step === 1) return EDGE;
    if (item.kind !== 'assert' && item.kind !== 'look') return boundary(item, step);
  }
  return outside;
}

/** The set of the first (`step` 1) or last (-1) character `node` always consumes, if known. */
function boundary(node: Node, step: 1 | -1): CharSet | undefined {
  if (node.kind === 'chars') return node.set;
  if (node.kind === 'repeat') return node.min >= 1 ? boundary(node.body, step) : undefined;
  if (node.kind === 'alt') {
    const sets = node.branches.map((b) => boundary(b, step));
    return sets.every((s) => s !== undefined) ? (sets as CharSet[]).reduce(union) : undefined;
  }
  if (node.kind !== 'seq') return undefined;
  const items = step === 1 ? node.items : [...node.items].reverse();
  const first = items.find((item) => item.kind !== 'assert' && item.kind !== 'look');
  return first && boundary(first, step);
}

function joinSides(outside: Side, copy: CharSet | undefined): Side {
  if (outside === undefined || copy === undefined) return undefined;
  return outside === EDGE || outside === END ? copy : union(outside, copy);
}

function measureRepeat(body: Node, min: number, max: number, before: Side, after: Side): Cost {
  if (min > MAX_REGEX_REPEAT || (max !== Infinity && max > MAX_REGEX_REPEAT)) {
    throw new Refusal(`repetition counts above ${MAX_REGEX_REPEAT} are not allowed`);
  }
  const copies = min === max || max === 1; // `{n}` and `?` write the body out, they do not loop it
  // Written out, each copy sits between the outside and the neighbouring copies.
  const inner = !copies
    ? measure(body, undefined, undefined)
    : max <= 1
      ? measure(body, before, after)
      : measure(body, joinSides(before, boundary(body, -1)), joinSides(after, boundary(body, 1)));
  if (inner.quantified && !copies)
    throw new Refusal('nested quantifiers like (a+)+ are not allowed (only ? and {n} may repeat a group that contains a quantifier)');
  if (inner.alternation && !copies) throw new Refusal('a repeated group whose alternatives can start with the same character, like (a|ab)+, is not allowed');
  const set = body.kind === 'chars' ? body.set : undefined;
  const guarded = (side: Side) => side === END || (set !== undefined && side !== undefined && (side === EDGE || disjoint(set, side)));
  const cost = Object.assign({}, inner, { quantified: true });
  if (max === Infinity) {
    // Last in the pattern, it never gives characters back: reaching it is a match.
    const free = after === END || (guarded(before) && guarded(after));
    return Object.assign(cost, { size: inner.size * Math.max(min, 1), unbounded: 1, overlapping: free ? 0 : 1 });
  }
  let choices = 0;
  for (let k = min; k <= max; k++) choices += inner.choices ** k;
  return Object.assign(cost, {
    size: inner.size * max,
    choices: min < max && guarded(after) ? 1 : choices,
    unbounded: inner.unbounded * max,
    overlapping: inner.overlapping * max,
  });
}
