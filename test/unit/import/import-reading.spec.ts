import { Readable } from 'node:stream';
import { csvRowValue, withoutIgnored, type ImportColumns } from '../../../src/import/import-cells.js';
import { readImportFile, type ImportBounds } from '../../../src/import/import-reader.js';
import { importQueryOf } from '../../../src/import/import-request.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function importReadingSpec(): void {
  const columns: ImportColumns = {
    ignored: new Set(['__v', 'createdAt']),
    whole: new Set(['tags', 'meta']),
    scalars: new Map([
      ['qty', 'number'],
      ['paid', 'boolean'],
      ['address.floor', 'number'],
    ]),
  };
  const bounds: ImportBounds = { importMaxRows: 3, importMaxBytes: 1000, importMaxRowBytes: 100, importBodyTimeout: 1000 };
  const requestOf = (text: string, type: string) => Object.assign(Readable.from([Buffer.from(text)]), { headers: { 'content-type': type } });

  describe('importQueryOf', () => {
    it('defaults: create, no dry run, the format of the Content-Type (its parameters and case aside)', () => {
      expect(importQueryOf({}, 'Text/CSV; charset=utf-8')).toEqual({ mode: 'create', dryRun: false, format: 'csv' });
      expect(importQueryOf(undefined, 'application/jsonl')).toEqual({ mode: 'create', dryRun: false, format: 'ndjson' });
      expect(importQueryOf({ mode: 'upsert', dryRun: 'true', format: 'json' }, 'text/plain')).toEqual({ mode: 'upsert', dryRun: true, format: 'json' });
    });

    it('refuses another value, a value given twice or as an object, and any other parameter (MR_INVALID_QUERY)', () => {
      for (const query of [{ mode: 'replace' }, { mode: ['create', 'upsert'] }, { dryRun: '1' }, { format: { $ne: 1 } }, { limit: '1' }]) {
        expect(() => importQueryOf(query, 'text/csv')).toThrow(expect.objectContaining({ code: 'MR_INVALID_QUERY' }));
      }
    });

    it('a Content-Type that names no format, without ?format=, is a 415', () => {
      for (const type of ['text/plain', 'application/xml', undefined]) {
        expect(() => importQueryOf({}, type)).toThrow(expect.objectContaining({ code: 'MR_UNSUPPORTED_MEDIA_TYPE' }));
      }
    });
  });

  describe('csvRowValue', () => {
    it('nests dotted columns, leaves empty cells out, casts numbers and booleans, parses JSON cells, skips ignored columns', () => {
      const value = csvRowValue(
        {
          code: 'A',
          qty: '-2.5e1',
          paid: 'TRUE',
          'address.city': 'Lyon',
          'address.floor': '3',
          tags: '["x"]',
          meta: 'plain',
          note: '',
          __v: '4',
          createdAt: 'x',
        },
        columns,
      );
      expect(value).toEqual({ code: 'A', qty: -25, paid: true, address: { city: 'Lyon', floor: 3 }, tags: ['x'], meta: 'plain' });
    });

    it('keeps text a field cannot take as text, for the check to refuse', () => {
      expect(csvRowValue({ qty: '12 apples', paid: 'yes', tags: '[broken' }, columns)).toEqual({ qty: '12 apples', paid: 'yes', tags: '[broken' });
    });

    it("takes off the ' an export puts before formula-like text, and only that", () => {
      expect(csvRowValue({ a: "'=1+1", b: "'-2", c: "'quoted", d: "''=x" }, columns)).toEqual({ a: '=1+1', b: '-2', c: "'quoted", d: "''=x" });
    });

    it('makes __proto__ and constructor own keys (the check refuses them), never a prototype', () => {
      const value = csvRowValue({ '__proto__.polluted': '1', 'constructor.prototype.x': '2' }, columns);
      expect(Object.keys(value)).toEqual(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('a column under a column that holds a value is kept whole, as a dotted key the check refuses', () => {
      expect(csvRowValue({ address: 'x', 'address.city': 'Lyon' }, columns)).toEqual({ address: 'x', 'address.city': 'Lyon' });
    });
  });

  describe('withoutIgnored', () => {
    it('drops the ignored top-level keys of a JSON row, and leaves other values alone', () => {
      expect(withoutIgnored({ code: 'A', __v: 1, createdAt: 'x' }, columns)).toEqual({ code: 'A' });
      expect(withoutIgnored([1], columns)).toEqual([1]);
      expect(withoutIgnored('text', columns)).toBe('text');
    });
  });

  describe('readImportFile', () => {
    it('NDJSON: a row per non-blank line, numbered by its line; CRLF and a last line without a newline', async () => {
      const file = await readImportFile(requestOf('{"a":1}\r\n\n{"a":2,"__v":3}', 'application/x-ndjson'), 'ndjson', bounds, columns);
      expect(file).toEqual({
        rows: [
          { row: 1, value: { a: 1 } },
          { row: 3, value: { a: 2 } },
        ],
        ignored: ['__v'],
      });
    });

    it('CSV: a byte-order mark skipped, records numbered without the header, the ignored columns named', async () => {
      const file = await readImportFile(requestOf('\ufeffcode,__v\r\nA,1\r\n"B, and ""C""",\r\n', 'text/csv'), 'csv', bounds, columns);
      expect(file).toEqual({
        rows: [
          { row: 1, value: { code: 'A' } },
          { row: 2, value: { code: 'B, and "C"' } },
        ],
        ignored: ['__v'],
      });
    });

    it('a body the app parsed as JSON: an array taken as it is, anything else refused', async () => {
      const parsed = { headers: { 'content-type': 'application/json' }, body: [{ a: 1 }] };
      expect(await readImportFile(parsed, 'json', bounds, columns)).toEqual({ rows: [{ row: 1, value: { a: 1 } }], ignored: [] });
      await expect(readImportFile({ ...parsed, body: { a: 1 } }, 'json', bounds, columns)).rejects.toMatchObject({ code: 'MR_INVALID_IMPORT' });
      await expect(readImportFile(parsed, 'csv', bounds, columns)).rejects.toMatchObject({ code: 'MR_UNSUPPORTED_MEDIA_TYPE' });
    });

    it('refuses past each bound, naming it', async () => {
      const refusal = (text: string, format: 'csv' | 'ndjson') => readImportFile(requestOf(text, 'text/csv'), format, bounds, columns);
      await expect(refusal('a\n1\n2\n3\n4\n', 'csv')).rejects.toMatchObject({
        code: 'MR_IMPORT_TOO_LARGE',
        message: expect.stringContaining('search.importMaxRows'),
      });
      await expect(refusal(`{"a":"${'x'.repeat(200)}"}`, 'ndjson')).rejects.toMatchObject({
        code: 'MR_IMPORT_TOO_LARGE',
        message: expect.stringContaining('search.importMaxRowBytes'),
      });
      await expect(refusal(`a\n${'x\n'.repeat(600)}`, 'csv')).rejects.toMatchObject({
        code: 'MR_IMPORT_TOO_LARGE',
        message: expect.stringContaining('search.importMaxBytes'),
      });
      const declared = Object.assign(requestOf('a\n1\n', 'text/csv'), { headers: { 'content-type': 'text/csv', 'content-length': '5000' } });
      await expect(readImportFile(declared, 'csv', bounds, columns)).rejects.toMatchObject({ code: 'MR_IMPORT_TOO_LARGE' });
    });
  });
}
