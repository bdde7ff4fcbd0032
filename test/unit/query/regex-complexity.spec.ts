import fc from 'fast-check';
import { checkRegexCost, MAX_REGEX_REPEAT, MAX_REGEX_SIZE, MAX_REGEX_UNBOUNDED } from '../../../src/query/regex-complexity.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function regexComplexitySpec(): void {
  /** The seed of the property below: fixed, so that every run checks the same patterns. */
  const SEED = 20261122;

  describe('checkRegexCost: ordinary search patterns run', () => {
    it.each([
      ['^acme', 'i'],
      ['acme', ''],
      ['foo.*bar', ''],
      ['^\\d{3}-\\d{4}$', ''],
      ['[a-z]+@example\\.com', ''],
      ['^(mr|mrs|ms)\\.? ', 'i'],
      ['colou?r', ''],
      ['.*', ''],
      ['(?i)paris', ''],
      ['^[A-Z][a-z]{2,20}$', ''],
      ['\\bword\\b', ''],
      ['^\\s*foo\\s*$', ''],
      ['\\d+\\.\\d+', ''],
      ['(a|b)+', ''],
      ['(foo|bar)+baz', ''],
      ['\\.(jpg|png|gif)$', 'i'],
      ['[(]+', ''],
      ['\\(a+\\)+', ''],
      ['[a-z{]{2}', ''],
      ['a\\{1000\\}', ''],
      [`[${'a'.repeat(254)}]`, ''],
    ])('%j (flags %j)', (pattern, flags) => {
      expect(checkRegexCost(pattern, flags)).toBeUndefined();
    });
  });

  describe('checkRegexCost: costly patterns are refused before they reach the database', () => {
    it.each([
      ['(a|a)*b', 'can start with the same character'],
      ['(a|ab)+', 'can start with the same character'],
      ['(a+)+b', 'nested quantifiers'],
      ['(.*)*x', 'nested quantifiers'],
      ['(x+x+)+y', 'nested quantifiers'],
      ['(.{0,10})*', 'nested quantifiers'],
      ['.{0,1000}.{0,1000}.{0,1000}x', `above ${MAX_REGEX_REPEAT}`],
      ['a{1000}', `above ${MAX_REGEX_REPEAT}`],
      ['.{0,100}x', 'too large'],
      ['a.*b.*c', 'neighbours'],
      ['.*.*.*.*.*x', ''],
      ['(a)\\1', 'backreferences'],
      ['(?<n>a)\\k<n>', 'backreferences'],
      ['(?R)', 'recursion'],
      ['(*SKIP)a', 'verbs'],
    ])('%j', (pattern, reason) => {
      const refusal = checkRegexCost(pattern);
      expect(refusal?.kind).toBe('costly');
      expect(refusal?.reason).toContain(reason);
    });

    it(`counts a pattern's size with its counted repetitions written out (at most ${MAX_REGEX_SIZE})`, () => {
      expect(checkRegexCost(`a{0,${MAX_REGEX_SIZE - 1}}b`)).toBeUndefined();
      expect(checkRegexCost(`a{0,${MAX_REGEX_SIZE}}b`)?.kind).toBe('costly');
      expect(checkRegexCost('a'.repeat(MAX_REGEX_SIZE))).toBeUndefined();
      expect(checkRegexCost('a'.repeat(MAX_REGEX_SIZE + 1))?.reason).toContain('too large');
    });

    it(`allows at most ${MAX_REGEX_UNBOUNDED} unbounded quantifiers, even guarded ones`, () => {
      const guarded = (n: number) => Array.from({ length: n }, () => '\\d+').join('\\.');
      expect(checkRegexCost(guarded(MAX_REGEX_UNBOUNDED))).toBeUndefined();
      expect(checkRegexCost(guarded(MAX_REGEX_UNBOUNDED + 1))?.reason).toContain('unbounded');
    });
  });

  describe('checkRegexCost: a pattern that is not a regular expression is invalid, not costly', () => {
    it.each(['[', '(a', 'a)', '*a', 'a{3,1}', '\\'])('%j', (pattern) => {
      expect(checkRegexCost(pattern)).toEqual({ kind: 'invalid', reason: expect.any(String) });
    });
  });

  describe(`checkRegexCost: every pattern gets an answer (fast-check seed ${SEED})`, () => {
    it('never throws, and answers the same twice', () => {
      const pieces = fc.constantFrom('a', 'b', '.', '\\d', '[a-z]', '(', ')', '|', '*', '+', '?', '{2}', '{1,3}', '^', '$', '\\', '[', ']', '(?:', '{');
      fc.assert(
        fc.property(fc.array(pieces, { maxLength: 20 }), fc.constantFrom('', 'i', 'x', 'imsx'), (parts, flags) => {
          const pattern = parts.join('');
          const first = checkRegexCost(pattern, flags);
          expect(checkRegexCost(pattern, flags)).toEqual(first);
          if (first) expect(['invalid', 'costly']).toContain(first.kind);
        }),
        { seed: SEED, numRuns: 2000 },
      );
    });
  });
}
