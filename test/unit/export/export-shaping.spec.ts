import { cellsOf, neutralized } from '../../../src/export/export-cells.js';
import { exportColumns } from '../../../src/export/export-columns.js';
import { exportFormatOf } from '../../../src/export/export-formats.js';
import { exportQuery } from '../../../src/query/search-params.parser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function exportShapingSpec(): void {
  describe('exportFormatOf', () => {
    it('takes ?format= first, refusing anything but the four names', () => {
      expect(exportFormatOf('xlsx', 'application/json')).toBe('xlsx');
      for (const format of ['CSV', 'pdf', '', ['csv'], { $ne: 'csv' }, 'csv ']) {
        expect(() => exportFormatOf(format, undefined)).toThrow(expect.objectContaining({ code: 'MR_INVALID_QUERY' }));
      }
    });

    it('else the Accept media type of the highest quality that names one, else CSV', () => {
      expect(exportFormatOf(undefined, undefined)).toBe('csv');
      expect(exportFormatOf(undefined, '*/*')).toBe('csv');
      expect(exportFormatOf(undefined, 'text/html, application/xhtml+xml')).toBe('csv');
      expect(exportFormatOf(undefined, 'application/json')).toBe('json');
      expect(exportFormatOf(undefined, 'Application/X-NDJSON; charset=utf-8')).toBe('ndjson');
      expect(exportFormatOf(undefined, 'application/jsonl')).toBe('ndjson');
      expect(exportFormatOf(undefined, 'text/csv;q=0.5, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;q=0.9')).toBe('xlsx');
      expect(exportFormatOf(undefined, 'application/json;q=0, text/csv;q=0.1')).toBe('csv');
      expect(exportFormatOf(undefined, 'application/json;q=0')).toBe('csv');
      expect(exportFormatOf(undefined, ['application/json', 'text/csv'])).toBe('json');
    });
  });

  describe('exportColumns', () => {
    const fields = {
      readable: new Set([
        '_id',
        'name',
        'address',
        'address.city',
        'address.geo',
        'address.geo.lat',
        'tags',
        'meta',
        'lines',
        'lines.qty',
        'lines.sku',
        'logo',
        'logo.name',
        'logo.size',
        'createdAt',
      ]),
      openPrefixes: ['tags', 'meta'],
      wholes: new Set(['lines', 'logo']),
    };

    it('one column per field that holds a value, nested objects flattened, arrays, files and free-form fields whole, _id first, virtuals last', () => {
      expect(exportColumns(fields, undefined, ['fullName'])).toEqual([
        '_id',
        'name',
        'address.city',
        'address.geo.lat',
        'tags',
        'meta',
        'lines',
        'logo',
        'createdAt',
        'fullName',
      ]);
    });

    it('with select, the selected fields only (and _id), at any depth, without virtuals', () => {
      expect(exportColumns(fields, ['address'], ['fullName'])).toEqual(['_id', 'address.city', 'address.geo.lat']);
      expect(exportColumns(fields, ['address.geo.lat', 'lines.qty', 'name'])).toEqual(['_id', 'name', 'address.geo.lat', 'lines']);
    });
  });

  describe('cells', () => {
    it('a date as ISO 8601, an object or an array as JSON, nothing as an empty cell, a dotted column read at its path', () => {
      const doc = {
        _id: 'a',
        when: new Date('2026-01-02T03:04:05.006Z'),
        bad: new Date(Number.NaN),
        tags: ['x'],
        meta: { a: 1 },
        address: { city: 'Lyon' },
        n: 2,
        big: 10n,
        inf: Infinity,
        none: null,
      };
      expect(cellsOf(doc, ['_id', 'when', 'bad', 'tags', 'meta', 'address.city', 'address.zip', 'n', 'big', 'inf', 'none', 'missing'])).toEqual([
        'a',
        '2026-01-02T03:04:05.006Z',
        null,
        '["x"]',
        '{"a":1}',
        'Lyon',
        null,
        2,
        '10',
        'Infinity',
        null,
        null,
      ]);
    });

    it('neutralises text that starts a formula, and nothing else', () => {
      for (const text of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(neutralized(text)).toBe(`'${text}`);
      for (const cell of ['a=b', ' =1', "'=1", '', -1, 3.5, true, null]) expect(neutralized(cell)).toBe(cell);
    });
  });

  describe('exportQuery', () => {
    it('takes format out of an export query string, and leaves the rest (and a query without it) as it is', () => {
      const query = { n: '1' };
      expect(exportQuery(query)).toBe(query);
      expect(exportQuery({ format: 'csv', n: '1', sort: 'n' })).toEqual({ n: '1', sort: 'n' });
      expect(exportQuery(undefined)).toBeUndefined();
    });
  });
}
