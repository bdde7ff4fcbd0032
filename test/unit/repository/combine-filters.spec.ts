import { combineFilters } from '../../../src/repository/model-repository.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function combineFiltersSpec(): void {
  describe('combineFilters (a reverse route\'s scope AND the client\'s filter)', () => {
    const scope = { owner: 'ada' };

    it('is the filter alone without a scope, and the scope alone with an empty filter', () => {
      expect(combineFilters(undefined, { employees: 3 })).toEqual({ employees: 3 });
      expect(combineFilters(scope, {})).toEqual({ owner: 'ada' });
    });

    it('merges the two when they name no common key (the conditions of one object are ANDed)', () => {
      const filter = { employees: { $gte: 10 }, $or: [{ owner: 'grace' }, { niceName: 'x' }] };
      expect(combineFilters(scope, filter)).toEqual({ owner: 'ada', employees: { $gte: 10 }, $or: [{ owner: 'grace' }, { niceName: 'x' }] });
    });

    it('keeps both conditions under $and when the filter names a key of the scope: it can never replace it', () => {
      expect(combineFilters(scope, { owner: 'grace', employees: 1 })).toEqual({ $and: [{ owner: 'ada' }, { owner: 'grace', employees: 1 }] });
    });

    it('copies: neither the scope nor the filter is changed', () => {
      const filter = { employees: 1 };
      combineFilters(scope, filter);
      expect(scope).toEqual({ owner: 'ada' });
      expect(filter).toEqual({ employees: 1 });
    });
  });
}
