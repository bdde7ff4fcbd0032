import { checkFerretDbFilter } from '../../../src/query/engine-limits.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function engineLimitsSpec(): void {
  /** The `$elemMatch` forms FerretDB v1 lacks or gets wrong (issue 23 item 25), refused before they reach it. */
  describe('checkFerretDbFilter', () => {
    const refusal = (filter: Record<string, unknown>) => {
      try {
        checkFerretDbFilter(filter);
      } catch (error) {
        const { code, details } = error as ModelRoutesException;
        return { code, path: details?.[0]?.path };
      }
      return undefined;
    };

    it.each<[Record<string, unknown>, string]>([
      [{ lines: { $elemMatch: { qty: { $gte: 2 } } } }, 'query.lines.$elemMatch'],
      [{ lines: { $elemMatch: { $and: [{ qty: 1 }] } } }, 'query.lines.$elemMatch'],
      [{ $nor: [{ a: 1 }, { tags: { $not: { $elemMatch: { $ne: 'x' } } } }] }, 'query.$nor.1.tags.$not.$elemMatch.$ne'],
      [{ tags: { $elemMatch: { $size: 1 } } }, 'query.tags.$elemMatch.$size'],
      [{ tags: { $elemMatch: { $elemMatch: { $eq: 1 } } } }, 'query.tags.$elemMatch.$elemMatch'],
      [{ lines: { $elemMatch: { $eq: { qty: 1 } } } }, 'query.lines.$elemMatch.$eq'],
      [{ lines: { $elemMatch: { $nin: [1, [2]] } } }, 'query.lines.$elemMatch.$nin'],
      [{ tags: { $all: ['a', { $elemMatch: { $eq: 'b' } }] } }, 'query.tags.$all.1'],
    ])('refuses %j at %s', (filter, path) => {
      expect(refusal(filter)).toEqual({ code: 'MR_UNSUPPORTED_QUERY', path });
    });

    it.each<Record<string, unknown>>([
      { tags: { $elemMatch: { $gte: 'a', $lt: 'n' } } },
      { tags: { $elemMatch: { $in: ['a', 'b'], $exists: true } } },
      { tags: { $elemMatch: { $regex: '^a', $options: 'i' } } },
      { when: { $elemMatch: { $gte: new Date(0) } } },
      { 'lines.qty': { $gte: 2 }, tags: { $all: ['a', 'b'] }, $or: [{ n: { $not: { $gt: 1 } } }] },
    ])('passes %j', (filter) => {
      expect(refusal(filter)).toBeUndefined();
    });
  });
}
