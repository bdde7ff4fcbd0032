/**
 * The lexical side of reading a PCRE pattern (see `regex-syntax.ts`): the position, the inline
 * flags in force, escapes, character classes, `\Q...\E` and `x`-mode white space.
 */
import { ALL_ASCII, ANY, type CharSet, ESCAPE_SETS, LITERAL_ESCAPES, range, single, union } from './regex-charset.js';

/** A pattern the cost check cannot accept: unreadable (`invalid`), or beyond any cost bound. */
export class Refusal extends Error {
  constructor(
    message: string,
    /** The pattern cannot be read at all (as opposed to: it can, but costs too much). */
    readonly invalid = false,
  ) {
    super(message);
  }
}

export const BACKREFERENCE = 'backreferences like \\1 or \\k<name> are not allowed';
export const CONTROL = 'recursion, subroutine calls, conditionals, callouts and verbs like (?R), (?1), (?(1)a|b), (*SKIP) are not allowed';
export const unparseable = (detail: string) => new Refusal(detail, true);

export interface Flags {
  i: boolean;
  m: boolean;
  x: boolean;
}

/** Reads characters and sets; `Parser` builds the tree on top of it. */
export abstract class PatternReader {
  protected pos = 0;
  protected flags: Flags;

  constructor(
    protected readonly src: string,
    flags: string,
  ) {
    this.flags = { i: flags.includes('i'), m: flags.includes('m'), x: flags.includes('x') };
  }

  /** After `\`: a character or a set (`\d`); refuses backreferences and escapes PCRE refuses. */
  protected escape(e: string | undefined): CharSet {
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
  protected quoted(): number[] {
    const end = this.src.indexOf('\\E', this.pos);
    const text = this.src.slice(this.pos, end < 0 ? undefined : end);
    this.pos = end < 0 ? this.src.length : end + 2;
    return [...text].map((ch) => ch.codePointAt(0)!);
  }

  /** After `[`: `]` first is a literal, `\]` too; ranges, escapes, POSIX `[:alpha:]`. */
  protected charClass(): CharSet {
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

  /** In `x` mode, white space and `#` comments between items are not part of the pattern. */
  protected skipExtended(): void {
    while (this.flags.x) {
      const c = this.src[this.pos];
      if (c === '#') {
        const end = this.src.indexOf('\n', this.pos);
        this.pos = end < 0 ? this.src.length : end + 1;
      } else if (c !== undefined && /\s/.test(c)) this.pos++;
      else return;
    }
  }

  protected closing(char: string): number {
    const at = this.src.indexOf(char, this.pos);
    if (at < 0) throw unparseable(`missing ${char}`);
    return at;
  }
}
