/**
 * Reads a `$regex` pattern the way PCRE (MongoDB's engine) reads it, into a small tree that
 * `regex-complexity.ts` measures: escapes, character classes (as sets of characters), groups,
 * inline flags, lookarounds, `\Q...\E`, `x` mode and quantifiers. What it cannot read, or what
 * no cost bound can hold (backreferences, recursion, verbs), is a `Refusal`.
 */
import { ALL_ASCII, ANY, type CharSet, disjoint, ESCAPE_SETS, fold, LITERAL_ESCAPES, range, single, union } from './regex-charset.js';

export class Refusal extends Error {
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

export type Node =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'assert'; end: boolean } // zero-width; `end`: `$` (not multiline), `\z` or `\Z`
  | { kind: 'look'; body: Node }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; branches: Node[] }
  | { kind: 'repeat'; body: Node; min: number; max: number };

interface Flags {
  i: boolean;
  m: boolean;
  x: boolean;
}

/** A recursive-descent reader of PCRE syntax, producing only what the cost rules need. */
export class Parser {
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
