import { cursorRequest, deepPage, depthRatios, pagedSeries, pagedTable, skipRequest, type PagedMeasure } from '../../../bench/paged-list.js';
import { backendName, sizesArgument } from '../../../bench/scenarios.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function pagedListSpec(): void {
  /** The paged list of the scale measures (issue 26, "Measured"). */
  describe('deepPage', () => {
    it('reads page 500 where the collection holds 10,000 documents, else its last full page', () => {
      expect(deepPage(100_000)).toEqual({ page: 500, skip: 9980 });
      expect(deepPage(10_000)).toEqual({ page: 500, skip: 9980 });
      expect(deepPage(5000)).toEqual({ page: 250, skip: 4980 });
      expect(deepPage(1000)).toEqual({ page: 50, skip: 980 });
      // At least page 2: a cursor of the page before leads to it.
      expect(deepPage(20)).toEqual({ page: 2, skip: 20 });
    });
  });

  describe('the paged requests', () => {
    it('sends a sorted page with skip, or after the cursor (escaped), asking for no count', () => {
      expect(skipRequest('niceName', 0)).toEqual({ method: 'GET', path: '/companies?sort=niceName&limit=20', headers: { prefer: 'count=none' } });
      expect(skipRequest('_id', 9980).path).toBe('/companies?sort=_id&limit=20&skip=9980');
      expect(cursorRequest('niceName', 'a+b/c=.d').path).toBe('/companies?sort=niceName&limit=20&after=a%2Bb%2Fc%3D.d');
    });
  });

  describe('the paged table, its ratios and its chart', () => {
    const measures: PagedMeasure[] = [
      { size: 1000, sort: 'niceName', read: 'page 1', generated: 10, handwritten: 12 },
      { size: 1000, sort: 'niceName', read: 'deep, skip', generated: 20, handwritten: 18 },
      { size: 1000, sort: 'niceName', read: 'deep, cursor', generated: 15, handwritten: 12 },
      { size: 10_000, sort: 'niceName', read: 'page 1', generated: 100, handwritten: 110 },
      { size: 10_000, sort: 'niceName', read: 'deep, skip', generated: 200, handwritten: 220 },
      { size: 10_000, sort: 'niceName', read: 'deep, cursor', generated: 150, handwritten: 120 },
    ];

    it('prints one row per size and read, naming the deep page (the last one under 10,000 documents)', () => {
      const table = pagedTable(measures);
      expect(table[0]).toBe('| companies | request | generated p50 | hand-written p50 | hand-written p50 / generated p50 |');
      expect(table).toHaveLength(2 + measures.length);
      expect(table[3]).toBe('| 1,000 | `GET /companies?sort=niceName&limit=20&skip=980` (page 50, the last of 1,000) | 20 ms | 18 ms | 0.90 |');
      expect(table[7]).toBe('| 10,000 | `GET /companies?sort=niceName&limit=20&after=<cursor>` (page 500) | 150 ms | 120 ms | 0.80 |');
    });

    it('gives the deep page over page 1 per size, with the cursor and with skip, per server', () => {
      expect(depthRatios(measures)).toEqual([
        'Sort by niceName, 1,000 companies, page 50 / page 1: cursor 1.50 generated, 1.00 hand-written; skip 2.00 generated, 1.50 hand-written',
        'Sort by niceName, 10,000 companies, page 500 / page 1: cursor 1.50 generated, 1.09 hand-written; skip 2.00 generated, 2.00 hand-written',
      ]);
    });

    it('draws a solid generated and a dashed hand-written line per read, in one colour group per read', () => {
      const series = pagedSeries(measures);
      expect(series.map((line) => [line.kind, line.dashed])).toEqual([
        ['sort=niceName, page 1', false],
        ['sort=niceName, page 1', true],
        ['sort=niceName, page 500 (or last), skip', false],
        ['sort=niceName, page 500 (or last), skip', true],
        ['sort=niceName, page 500 (or last), cursor', false],
        ['sort=niceName, page 500 (or last), cursor', true],
      ]);
      expect(series[5]!.points).toEqual([
        { x: 1000, y: 12 },
        { x: 10_000, y: 120 },
      ]);
    });
  });

  describe('sizesArgument and backendName', () => {
    it('takes --sizes as sorted whole numbers, and refuses what is not', () => {
      expect(sizesArgument(['node', 'run.js', '--scale-only', '--sizes', '10000,1000'])).toEqual([1000, 10_000]);
      expect(sizesArgument(['node', 'run.js'])).toBeUndefined();
      expect(() => sizesArgument(['node', 'run.js', '--sizes'])).toThrow('--sizes needs whole numbers');
      expect(() => sizesArgument(['node', 'run.js', '--sizes', '1000,1e3x'])).toThrow('--sizes needs whole numbers');
      expect(() => sizesArgument(['node', 'run.js', '--sizes', '10'])).toThrow('at least 40');
    });

    it('names the backend of an engine for the charts', () => {
      expect(backendName('FerretDB v1.24.2 (PostgreSQL 15.18 backend, `auto`) at mongodb://127.0.0.1:1/')).toBe('postgresql');
      expect(backendName('FerretDB v1.24.2 (SQLite backend; no PostgreSQL found) at mongodb://127.0.0.1:1/')).toBe('sqlite');
      expect(backendName('MONGODB_URI (mongodb://***@host/)')).toBe('mongodb');
    });
  });
}
