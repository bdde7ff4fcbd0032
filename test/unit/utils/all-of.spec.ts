import { allOf } from '../../../src/utils/all-of.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function allOfSpec(): void {
  describe("allOf (a row scope, a reverse route's scope and the client's filter, ANDed)", () => {
    const scope = { owner: 'ada' };

    it('is the filter alone without a scope, and the scope alone with an empty filter', () => {
      expect(allOf(undefined, { employees: 3 })).toEqual({ employees: 3 });
      expect(allOf(scope, {})).toEqual({ owner: 'ada' });
      expect(allOf(undefined, undefined)).toEqual({});
    });

    it('merges them when they name no common key (the conditions of one object are ANDed)', () => {
      const filter = { employees: { $gte: 10 }, $or: [{ owner: 'grace' }, { niceName: 'x' }] };
      expect(allOf(scope, filter)).toEqual({ owner: 'ada', employees: { $gte: 10 }, $or: [{ owner: 'grace' }, { niceName: 'x' }] });
      expect(allOf({ tenant: 't' }, scope, { employees: 1 })).toEqual({ tenant: 't', owner: 'ada', employees: 1 });
    });

    it('keeps every condition under $and when two name a common key: none can ever replace another', () => {
      expect(allOf(scope, { owner: 'grace', employees: 1 })).toEqual({ $and: [{ owner: 'ada' }, { owner: 'grace', employees: 1 }] });
      // Two $or (a scope's "published or mine" and a client's) are both kept.
      const mine = { $or: [{ published: true }, { owner: 'ada' }] };
      expect(allOf(mine, { $or: [{ a: 1 }] })).toEqual({ $and: [mine, { $or: [{ a: 1 }] }] });
      expect(allOf({ tenant: 't' }, scope, { tenant: 'u' })).toEqual({ $and: [{ tenant: 't' }, scope, { tenant: 'u' }] });
    });

    it('copies: no filter given is changed', () => {
      const filter = { employees: 1 };
      allOf(scope, filter);
      expect(scope).toEqual({ owner: 'ada' });
      expect(filter).toEqual({ employees: 1 });
    });
  });
}
