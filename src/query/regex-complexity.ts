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
      return `the pattern can match the same text in too many ways (${choices} > ${MAX_REGEX_CHOICES}): optional parts, ranges and alternatives multiply, and so does the size when a .* or + overlaps its neighbours`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof Refusal) return error;
    throw error;
  }
}

class Refusal extends Error {
  constructor(
    message: string,
    /** The pattern cannot be read at all (as opposed to: it can, but costs too much). */
    readonly invalid = false,
  ) {
    super(message);
  }
}

const BACKREFERENCE = 'backreferences like \\1 or \\k<name> are not allowed';
const CONTROL = 'recursion, subroutine calls, conditionals, callouts and verbs like (?R), (?1), (?(1)a|b), (*SKIP) are not allowed';
const unparseable = (detail: string) => new Refusal(detail, true);

/** What one character of input may be: ASCII as bits, plus whether anything beyond ASCII. */
interface CharSet {
  ascii: bigint;
  other: boolean;
}

type Node =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'assert'; end: boolean } // zero-width; `end`: `$` (not multiline), `\z` or `\Z`
  | { kind: 'look'; body: Node }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; branches: Node[] }
  | { kind: 'repeat'; body: Node; min: number; max: number };

const ALL_ASCII = (1n << 128n) - 1n;
const ANY: CharSet = { ascii: ALL_ASCII, other: true };
const bits = (chars: string) => [...chars].reduce((set, c) => set | (1n << BigInt(c.charCodeAt(0))), 0n);
const range = (from: number, to: number) => ((1n << BigInt(to + 1)) - 1n) & ~((1n << BigInt(from)) - 1n);
const DIGIT = range(48, 57);
const SPACE = bits(' \t\n\v\f\r');
const WORD = DIGIT | range(65, 90) | range(97, 122) | bits('_');
const LETTERS = range(65, 90) | range(97, 122);
const ESCAPE_SETS: Record<string, CharSet> = {
  d: { ascii: DIGIT, other: false },
  s: { ascii: SPACE, other: false },
  w: { ascii: WORD, other: false },
  h: { ascii: bits(' \t'), other: true },
  v: { ascii: bits('\n\v\f\r'), other: true },
  D: { ascii: ALL_ASCII & ~DIGIT, other: true },
  S: { ascii: ALL_ASCII & ~SPACE, other: true },
  W: { ascii: ALL_ASCII & ~WORD, other: true },
  H: ANY, V: ANY, N: ANY, R: ANY, X: ANY, C: ANY,
};
const LITERAL_ESCAPES: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, e: 27, a: 7 };

const union = (a: CharSet, b: CharSet): CharSet => ({ ascii: a.ascii | b.ascii, other: a.other || b.other });
const disjoint = (a: CharSet, b: CharSet) => (a.ascii & b.ascii) === 0n && !(a.other && b.other);
const single = (code: number): CharSet => (code < 128 ? { ascii: 1n << BigInt(code), other: false } : { ascii: 0n, other: true });

/** Under `i`, letters match both cases (and `k`, `s` match the Kelvin sign and the long s). */
function fold(set: CharSet): CharSet {
  const letters = set.ascii & LETTERS;
  if (letters === 0n) return set;
  return { ascii: set.ascii | ((letters & range(65, 90)) << 32n) | ((letters & range(97, 122)) >> 32n), other: true };
}

interface Flags {
  i: boolean;
  m: boolean;
  x: boolean;
}

/** A recursive-descent reader of PCRE syntax, producing only what the cost rules need. */
class Parser {
  private pos = 0;
  private flags: Flags;

  constructor(private readonly src: string, flags: string) {
    this.flags = { i: flags.includes('i'), m: flags.includes('m'), x: flags.includes('x') };
  }

  parse(): Node {
    const node = this.alternation();
    if (this.pos < this.src.length) throw unparseable(`unmatched ) at ${this.pos}`);
    return node;
  }

  private alternation(): Node {
    const branches = [this.sequence()];
    while (this.src[this.pos] === '|') {
      this.pos++;
      branches.push(this.sequence());
    }
    if (branches.length === 1) return branches[0];
    // One distinct character per branch (`a|b|c`) is a character class: one way to match.
    if (branches.every((b) => b.kind === 'chars')) {
      const sets = branches.map((b) => (b as { set: CharSet }).set);
      if (sets.every((set, i) => sets.slice(i + 1).every((other) => disjoint(set, other)))) {
        return { kind: 'chars', set: sets.reduce(union) };
      }
    }
    return { kind: 'alt', branches };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (;;) {
      this.skipExtended();
      const c = this.src[this.pos];
      if (c === undefined || c === '|' || c === ')') break;
      const quantifier = this.quantifier();
      if (quantifier) {
        const body = items.pop();
        if (!body) throw unparseable(`nothing to repeat at ${this.pos - 1}`);
        items.push({ kind: 'repeat', body, ...quantifier });
      } else {
        this.atom(items);
      }
    }
    return items.length === 1 ? items[0] : { kind: 'seq', items };
  }

  private quantifier(): { min: number; max: number } | undefined {
    const c = this.src[this.pos];
    let min = 0;
    let max = Infinity;
    if (c === '+') min = 1;
    else if (c === '?') max = 1;
    else if (c === '{') {
      // `{n}`, `{n,}`, `{n,m}`, and `{,m}` (PCRE2 10.43), spaces allowed; anything else is a literal `{`.
      const m = /^\{\s*(\d*)\s*(?:(,)\s*(\d*)\s*)?\}/.exec(this.src.slice(this.pos));
      if (!m || (m[1] === '' && (m[2] === undefined || m[3] === ''))) return undefined;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min > max) throw unparseable(`numbers out of order in ${m[0]}`);
      this.pos += m[0].length - 1;
    } else if (c !== '*') return undefined;
    this.pos++;
    // Lazy (`+?`) and possessive (`++`) forms cost the same for these rules.
    if (this.src[this.pos] === '?' || this.src[this.pos] === '+') this.pos++;
    return { min, max };
  }

  private atom(items: Node[]): void {
    const c = this.src[this.pos++];
    if (c === '(') return this.group(items);
    if (c === '[') return void items.push(this.chars(this.charClass()));
    if (c === '.') return void items.push({ kind: 'chars', set: ANY });
    if (c === '^') return void items.push({ kind: 'assert', end: false });
    if (c === '$') return void items.push({ kind: 'assert', end: !this.flags.m });
    if (c !== '\\') return void items.push(this.chars(single(c.charCodeAt(0))));
    const e = this.src[this.pos++];
    if (e === 'Q') {
      for (const code of this.quoted()) items.push(this.chars(single(code)));
    } else if ('bBAGK'.includes(e ?? '-')) {
      items.push({ kind: 'assert', end: false });
    } else if (e === 'z' || e === 'Z') {
      items.push({ kind: 'assert', end: true });
    } else if (e === 'N' && this.src.startsWith('{U+', this.pos)) {
      this.pos = this.closing('}') + 1;
      items.push({ kind: 'chars', set: ANY });
    } else if (e !== 'E') {
      items.push(this.chars(this.escape(e)));
    }
  }

  private chars(set: CharSet): Node {
    return { kind: 'chars', set: this.flags.i ? fold(set) : set };
  }

  /** After `\`: a character or a set (`\d`); refuses backreferences and escapes PCRE refuses. */
  private escape(e: string | undefined): CharSet {
    if (e === undefined) throw unparseable('\\ at the end');
    if (/[1-9]/.test(e) || e === 'k') throw new Refusal(BACKREFERENCE);
    if (e === 'g') throw new Refusal(this.src[this.pos] === '<' || this.src[this.pos] === "'" ? CONTROL : BACKREFERENCE);
    if (ESCAPE_SETS[e]) return ESCAPE_SETS[e];
    if (e === 'E') return { ascii: 0n, other: false }; // `\E` without `\Q`: nothing
    if (e === 'p' || e === 'P') {
      this.pos = this.src[this.pos] === '{' ? this.closing('}') + 1 : this.pos + 1;
      return ANY;
    }
    if (e in LITERAL_ESCAPES) return single(LITERAL_ESCAPES[e]);
    if (e === 'c') return single((this.src.charCodeAt(this.pos++) || 64) ^ 64);
    if (e === 'x' || e === 'o' || e === '0') {
      let digits: string;
      if (e !== '0' && this.src[this.pos] === '{') {
        const end = this.closing('}');
        digits = this.src.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else {
        digits = (e === 'x' ? /^[0-9a-fA-F]{0,2}/ : /^[0-7]{0,2}/).exec(this.src.slice(this.pos))![0];
        this.pos += digits.length;
      }
      const code = parseInt(digits || '0', e === 'x' ? 16 : 8);
      if (Number.isNaN(code)) throw unparseable(`bad \\${e} escape`);
      return single(code);
    }
    if (/[a-zA-Z]/.test(e)) throw unparseable(`unsupported escape \\${e}`);
    return single(e.charCodeAt(0));
  }

  /** After `\Q`: the literal characters up to `\E` or the end. */
  private quoted(): number[] {
    const end = this.src.indexOf('\\E', this.pos);
    const text = this.src.slice(this.pos, end < 0 ? undefined : end);
    this.pos = end < 0 ? this.src.length : end + 2;
    return [...text].map((ch) => ch.codePointAt(0)!);
  }

  /** After `[`: `]` first is a literal, `\]` too; ranges, escapes, POSIX `[:alpha:]`. */
  private charClass(): CharSet {
    const negated = this.src[this.pos] === '^';
    if (negated) this.pos++;
    let set: CharSet = { ascii: 0n, other: false };
    for (let first = true; ; first = false) {
      const c = this.src[this.pos];
      if (c === undefined) throw unparseable('missing ]');
      if (c === ']' && !first) break;
      const posix = /^\[:\^?[a-z]+:\]/.exec(this.src.slice(this.pos));
      if (posix) {
        this.pos += posix[0].length;
        set = union(set, ANY);
        continue;
      }
      if (this.src.startsWith('\\Q', this.pos)) {
        this.pos += 2;
        for (const code of this.quoted()) set = union(set, single(code));
        continue;
      }
      const from = this.classMember();
      if (typeof from === 'number' && this.src[this.pos] === '-' && this.src[this.pos + 1] !== ']' && this.pos + 1 < this.src.length) {
        this.pos++;
        const to = this.classMember();
        if (typeof to !== 'number') {
          set = union(union(set, single(from)), union(single(45), to)); // `[a-\d]`: a, -, digits
        } else if (to < from) {
          throw unparseable('range out of order in character class');
        } else {
          set = union(set, { ascii: from < 128 ? range(from, Math.min(to, 127)) : 0n, other: to >= 128 });
        }
      } else {
        set = union(set, typeof from === 'number' ? single(from) : from);
      }
    }
    this.pos++;
    return negated ? { ascii: ALL_ASCII & ~set.ascii, other: true } : set;
  }

  private classMember(): number | CharSet {
    const c = this.src[this.pos++];
    if (c !== '\\') return c.charCodeAt(0);
    const e = this.src[this.pos++];
    if (e === 'b') return 8; // backspace inside a class
    const set = this.escape(e);
    const one = !set.other && set.ascii !== 0n && (set.ascii & (set.ascii - 1n)) === 0n;
    return one ? set.ascii.toString(2).length - 1 : set;
  }

  private group(items: Node[]): void {
    const saved = { ...this.flags };
    const rest = this.src.slice(this.pos);
    let look = false;
    if (rest.startsWith('*')) throw new Refusal(CONTROL);
    if (rest.startsWith('?')) {
      if (/^\?(P=|k)/.test(rest)) throw new Refusal(BACKREFERENCE);
      if (/^\?(P>|&|R|[+-]?\d|\(|C)/.test(rest)) throw new Refusal(CONTROL);
      const head = /^\?(?:([:>|])|(=|!|<=|<!)|(P?<[A-Za-z_]\w*>|'[A-Za-z_]\w*')|(#)|(\^?[imnsxJU]*(?:-[imnsxJU]*)?)([:)]))/.exec(rest);
      if (!head) throw unparseable(`unknown group (${rest.slice(0, 3)} at ${this.pos - 1}`);
      if (head[4]) {
        this.pos = this.closing(')') + 1; // (?# comment )
        return;
      }
      this.pos += head[0].length;
      look = head[2] !== undefined;
      if (head[5] !== undefined) {
        this.setFlags(head[5]);
        if (head[6] === ')') return; // `(?i)`: for the rest of the enclosing group
      }
    }
    const body = this.alternation();
    if (this.src[this.pos] !== ')') throw unparseable('missing )');
    this.pos++;
    this.flags = saved;
    items.push(look ? { kind: 'look', body } : body);
  }

  private setFlags(spec: string): void {
    if (spec.startsWith('^')) this.flags = { i: false, m: false, x: false };
    let on = true;
    for (const letter of spec.replace('^', '')) {
      if (letter === '-') on = false;
      else if (letter === 'i' || letter === 'm' || letter === 'x') this.flags[letter] = on;
    }
  }

  /** In `x` mode, white space and `#` comments between items are not part of the pattern. */
  private skipExtended(): void {
    while (this.flags.x) {
      const c = this.src[this.pos];
      if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end + 1;
      } else if (c !== undefined && /\s/.test(c)) this.pos++;
      else return;
    }
  }

  private closing(char: string): number {
    const at = this.src.indexOf(char, this.pos);
    if (at < 0) throw unparseable(`missing ${char}`);
    return at;
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
      return { ...FREE, size: 1 };
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
        .reduce((a, b) => ({ ...add(a, b), choices: distinct ? Math.max(a.choices, b.choices) : a.choices + b.choices, alternation: a.alternation || b.alternation || !distinct }));
    }
    case 'seq':
      return measureSequence(node.items.flatMap(function flat(item): Node[] { return item.kind === 'seq' ? item.items.flatMap(flat) : [item]; }), before, after);
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
  if (inner.quantified && !copies) throw new Refusal('nested quantifiers like (a+)+ are not allowed (only ? and {n} may repeat a group that contains a quantifier)');
  if (inner.alternation && !copies) throw new Refusal('a repeated group whose alternatives can start with the same character, like (a|ab)+, is not allowed');
  const set = body.kind === 'chars' ? body.set : undefined;
  const guarded = (side: Side) => side === END || (set !== undefined && side !== undefined && (side === EDGE || disjoint(set, side)));
  const cost = { ...inner, quantified: true };
  if (max === Infinity) {
    // Last in the pattern, it never gives characters back: reaching it is a match.
    const free = after === END || (guarded(before) && guarded(after));
    return { ...cost, size: inner.size * Math.max(min, 1), unbounded: 1, overlapping: free ? 0 : 1 };
  }
  let choices = 0;
  for (let k = min; k <= max; k++) choices += inner.choices ** k;
  return {
    ...cost,
    size: inner.size * max,
    choices: min < max && guarded(after) ? 1 : choices,
    unbounded: inner.unbounded * max,
    overlapping: inner.overlapping * max,
  };
}
