import { needsCollectionCount, searchCounts, type CountPlan, type PageRead } from '../../../src/repository/match-count.js';
import { countPreferenceOf } from '../../../src/query/count-preference.parser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function matchCountSpec(): void {
  /** `searchCounts` over a collection of `total` documents of which `matching` match, with the count queries it sent (their limits). */
  async function counts(plan: Partial<CountPlan>, page: PageRead, { total = 5000, matching = 3000 } = {}) {
    const full: CountPlan = { policy: 'exact', unfiltered: false, estimateLimit: 1000, ...plan };
    const queries: Array<number | undefined> = [];
    const answer = await searchCounts(full, page, {
      matches: async (limit) => {
        queries.push(limit);
        const all = full.unfiltered ? total : matching;
        return limit === undefined ? all : Math.min(all, limit);
      },
      ...(needsCollectionCount(full) ? { collection: total } : {}),
    });
    return { answer, queries };
  }

  describe('searchCounts', () => {
    it('takes the number from a page that shows the end, without a query, when estimating', async () => {
      expect(await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 7 })).toEqual({
        answer: { count: 5000, match_count: 7, counted: 'exact' },
        queries: [],
      });
      expect(await counts({ policy: 'estimated', unfiltered: true }, { skip: 40, limit: 20, found: 3 }, { total: 43 })).toEqual({
        answer: { count: 43, match_count: 43, counted: 'exact' },
        queries: [],
      });
      expect(await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 0 })).toEqual({
        answer: { count: 5000, match_count: 0, counted: 'exact' },
        queries: [],
      });
    });

    it('counts exactly with the count sent beside the page, whatever the page shows', async () => {
      expect(await counts({}, { skip: 0, limit: 20, found: 7 }, { matching: 7 })).toEqual({
        answer: { count: 5000, match_count: 7, counted: 'exact' },
        queries: [undefined],
      });
    });

    it('counts a full page, and a page past the end', async () => {
      expect(await counts({}, { skip: 0, limit: 20, found: 20 })).toEqual({
        answer: { count: 5000, match_count: 3000, counted: 'exact' },
        queries: [undefined],
      });
      expect(await counts({}, { skip: 9000, limit: 20, found: 0 })).toEqual({
        answer: { count: 5000, match_count: 3000, counted: 'exact' },
        queries: [undefined],
      });
    });

    it('estimates an unfiltered search from the metadata, never past what a page past the end shows', async () => {
      expect(await counts({ policy: 'estimated', unfiltered: true }, { skip: 0, limit: 20, found: 20 })).toEqual({
        answer: { count: 5000, match_count: 5000, counted: 'estimated' },
        queries: [],
      });
      // The metadata lags (says 5000), and the page found nothing after 4000: at most 4000 match.
      expect((await counts({ policy: 'estimated', unfiltered: true }, { skip: 4000, limit: 20, found: 0 })).answer).toEqual({
        count: 5000,
        match_count: 4000,
        counted: 'estimated',
      });
    });

    it('bounds the count of a filtered estimate, as a lower bound past it', async () => {
      expect(await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 20 })).toEqual({
        answer: { count: 5000, match_count: 1000, counted: 'estimated' },
        queries: [1001],
      });
      expect((await counts({ policy: 'estimated' }, { skip: 2000, limit: 20, found: 20 })).answer).toEqual({
        count: 5000,
        match_count: 2020,
        counted: 'estimated',
      });
      expect((await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 20 }, { matching: 1000 })).answer).toEqual({
        count: 5000,
        match_count: 1000,
        counted: 'exact',
      });
      expect((await counts({ policy: 'estimated' }, { skip: 4000, limit: 20, found: 0 })).answer).toEqual({
        count: 5000,
        match_count: 1000,
        counted: 'estimated',
      });
    });

    it('takes the end from a sorted page read one document longer: a full page with nothing after it needs no count', async () => {
      expect(await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 20, more: false })).toEqual({
        answer: { count: 5000, match_count: 20, counted: 'exact' },
        queries: [],
      });
      expect(await counts({ policy: 'estimated' }, { skip: 0, limit: 20, found: 20, more: true })).toEqual({
        answer: { count: 5000, match_count: 1000, counted: 'estimated' },
        queries: [1001],
      });
    });

    it('counts after a cursor, where the matches before the page are not known', async () => {
      // 7 documents after the cursor, the last page: the search still matches 3000.
      expect(await counts({}, { skip: 0, limit: 20, found: 7, more: false, continued: true })).toEqual({
        answer: { count: 5000, match_count: 3000, counted: 'exact' },
        queries: [undefined],
      });
      expect((await counts({ policy: 'estimated', unfiltered: true }, { skip: 0, limit: 20, found: 0, more: false, continued: true })).answer).toEqual({
        count: 5000,
        match_count: 5000,
        counted: 'estimated',
      });
      expect((await counts({ policy: 'none' }, { skip: 0, limit: 20, found: 7, more: false, continued: true }, { total: 3 })).answer).toEqual({
        count: 7,
        counted: 'none',
      });
    });

    it('counts nothing with none, and never answers a count below what the page shows', async () => {
      expect(await counts({ policy: 'none' }, { skip: 0, limit: 20, found: 20 })).toEqual({ answer: { count: 5000, counted: 'none' }, queries: [] });
      expect((await counts({ policy: 'none', unfiltered: true }, { skip: 100, limit: 20, found: 20 }, { total: 50 })).answer).toEqual({
        count: 120,
        counted: 'none',
      });
    });
  });

  describe('countPreferenceOf', () => {
    it.each([
      [undefined, undefined],
      ['return=minimal', undefined],
      ['count=exact', 'exact'],
      ['COUNT=Estimated', 'estimated'],
      ['count="planned"', 'estimated'],
      ['handling=lenient; x, count=none;strict', 'none'],
      [['return=minimal', 'count=none'], 'none'],
      ['count=none, count=exact', 'none'],
    ])('%j asks for %s', (header, policy) => {
      expect(countPreferenceOf(header as string | string[] | undefined)).toBe(policy);
    });

    it.each(['count', 'count=', 'count=all', 'count=__proto__', 'count=nope, count=exact'])('%j is a 400 naming Prefer', (header) => {
      expect(() => countPreferenceOf(header)).toThrow(expect.objectContaining({ code: 'MR_INVALID_QUERY' }));
    });
  });
}
