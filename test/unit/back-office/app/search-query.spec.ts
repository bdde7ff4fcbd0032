import { containing, toBody, toQueryString } from '../../../../src/back-office/app/search-query.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function searchQuerySpec(): void {
  describe("search queries of the back office app (the search routes' query string and body)", () => {
    it('writes equality as field=value and operators as field[op]=value, lists joined by commas', () => {
      const query = toQueryString({ filter: { niceName: 'Acme', active: true, employees: { $gte: 10, $lte: 50 }, _id: { $in: ['a', 'b'] } } });
      expect(query.toString()).toBe('niceName=Acme&active=true&employees%5Bgte%5D=10&employees%5Blte%5D=50&_id%5Bin%5D=a%2Cb');
      expect([...query]).toEqual([
        ['niceName', 'Acme'],
        ['active', 'true'],
        ['employees[gte]', '10'],
        ['employees[lte]', '50'],
        ['_id[in]', 'a,b'],
      ]);
    });

    it('leaves out operators without a value, a zero skip and a missing limit; keeps a zero limit', () => {
      expect(toQueryString({ filter: { employees: { $gte: undefined, $lte: 5 } }, skip: 0 }).toString()).toBe('employees%5Blte%5D=5');
      expect([...toQueryString({ filter: {}, sort: '-employees', limit: 0, skip: 20 })]).toEqual([
        ['sort', '-employees'],
        ['limit', '0'],
        ['skip', '20'],
      ]);
      expect(toQueryString({ filter: {} }).toString()).toBe('');
    });

    it('sends the same search as a POST body: the filter as query, the rest only when set', () => {
      expect(toBody({ filter: { niceName: containing('ac') }, sort: 'niceName', limit: 10, skip: 10 })).toEqual({
        query: { niceName: { $regex: 'ac', $options: 'i' } },
        sort: 'niceName',
        limit: 10,
        skip: 10,
      });
      expect(toBody({ filter: {}, limit: 0 })).toEqual({ query: {}, limit: 0 });
      expect(toBody({ filter: {}, skip: 0 })).toEqual({ query: {} });
    });

    it('continues after a cursor: after=<cursor> in a query string, the member after in a body; none when empty', () => {
      expect([...toQueryString({ filter: { niceName: 'a' }, sort: '-employees', limit: 20, after: 'eyJ2IjoxfQ.x-_y', expand: ['owner'] })]).toEqual([
        ['niceName', 'a'],
        ['sort', '-employees'],
        ['limit', '20'],
        ['after', 'eyJ2IjoxfQ.x-_y'],
        ['expand', 'owner'],
      ]);
      expect(toQueryString({ filter: {}, after: '' }).toString()).toBe('');
      expect(toBody({ filter: {}, sort: 'title', limit: 20, after: 'c1' })).toEqual({ query: {}, sort: 'title', limit: 20, after: 'c1' });
      expect(toBody({ filter: {}, after: '' })).toEqual({ query: {} });
    });

    it('asks for expanded references as expand=a,b in a query string and as a list in a body; none when there are none', () => {
      expect([...toQueryString({ filter: { lead: 'x' }, limit: 20, expand: ['captain', 'base'] })]).toEqual([
        ['lead', 'x'],
        ['limit', '20'],
        ['expand', 'captain,base'],
      ]);
      expect(toQueryString({ filter: {}, expand: [] }).toString()).toBe('');
      expect(toBody({ filter: {}, expand: ['captain', 'base'] })).toEqual({ query: {}, expand: ['captain', 'base'] });
      expect(toBody({ filter: {}, expand: [] })).toEqual({ query: {} });
    });

    it('matches a typed fragment literally and case-insensitively: every regex character escaped', () => {
      expect(containing('a.b*c')).toEqual({ $regex: 'a\\.b\\*c', $options: 'i' });
      const { $regex } = containing('(x)+?[y]{2}^$|\\') as { $regex: string };
      expect(new RegExp($regex).test('(x)+?[y]{2}^$|\\')).toBe(true);
      expect(new RegExp($regex).test('xxyy')).toBe(false);
    });
  });
}
