/**
 * Reads a `$regex` pattern the way PCRE (MongoDB's engine) reads it, into a small tree that
 * `regex-complexity.ts` measures: escapes, character classes (as sets of characters), groups,
 * inline flags, lookarounds, `\Q...\E`, `x` mode and quantifiers. What it cannot read, or what
 * no cost bound can hold (backreferences, recursion, verbs), is a `Refusal`.
 */
import { ANY, type CharSet, disjoint, fold, single, union } from './regex-charset.js';
import { BACKREFERENCE, CONTROL, PatternReader, Refusal, unparseable } from './regex-reader.js';

export { Refusal };

/** The tree the cost rules measure. */
export type Node =
  | { kind: 'chars'; set: CharSet }
  | { kind: 'assert'; end: boolean } // zero-width; `end`: `$` (not multiline), `\z` or `\Z`
  | { kind: 'look'; body: Node }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; branches: Node[] }
  | { kind: 'repeat'; body: Node; min: number; max: number };

/** A recursive-descent reader of PCRE syntax, producing only what the cost rules need. */
export class Parser extends PatternReader {
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
}
