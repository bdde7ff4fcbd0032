import {
  IMPORT_FORMATS,
  importFormatOf,
  importRequest,
  reportCounts,
  reportSummary,
  writesOf,
  type ImportReport,
} from '../../../../src/back-office/app/import-request.js';
import { IMPORT_MEDIA_TYPES } from '../../../../src/import/import-request.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function importRequestSpec(): void {
  describe("a back office import's request and report (the import route's query string and its words)", () => {
    const report = (over: Partial<ImportReport>): ImportReport => ({
      mode: 'create',
      dryRun: true,
      rows: 4,
      created: 2,
      updated: 0,
      unchanged: 0,
      refused: 2,
      ignored: [],
      errors: [],
      ...over,
    });

    it('knows the format of a file by its name, and none of another', () => {
      expect(['a.csv', 'B.CSV', 'rows.ndjson', 'rows.jsonl', 'all.json', 'x.xlsx', 'README'].map(importFormatOf)).toEqual([
        'csv',
        'csv',
        'ndjson',
        'ndjson',
        'json',
        'xlsx',
        undefined,
      ]);
    });

    it('sends each format with a media type the route reads as that format, and the mode, format and dryRun in the query', () => {
      for (const [format, { mediaType }] of Object.entries(IMPORT_FORMATS)) expect(IMPORT_MEDIA_TYPES[mediaType]).toBe(format);
      expect(importRequest({ format: 'csv', mode: 'upsert', dryRun: true }).query.toString()).toBe('mode=upsert&format=csv&dryRun=true');
      expect(importRequest({ format: 'json', mode: 'create', dryRun: false })).toEqual({
        query: new URLSearchParams('mode=create&format=json'),
        contentType: 'application/json',
      });
    });

    it('says what a check would do and what an import did; unchanged only for an upsert', () => {
      expect(reportSummary(report({}))).toBe('Checked 4 rows: 2 would be created, 0 updated, 2 refused. Nothing was written.');
      expect(reportSummary(report({ dryRun: false, mode: 'upsert', rows: 1, created: 0, updated: 1, refused: 0 }))).toBe(
        'Imported 1 row: 0 created, 1 updated, 0 unchanged, 0 refused.',
      );
      expect(reportCounts(report({}))).toEqual([
        ['Rows', 4],
        ['Would be created', 2],
        ['Would be updated', 0],
        ['Refused', 2],
      ]);
      expect(reportCounts(report({ dryRun: false, mode: 'upsert', unchanged: 1 })).map(([label]) => label)).toEqual([
        'Rows',
        'Created',
        'Updated',
        'Unchanged',
        'Refused',
      ]);
    });

    it('offers an import only when the check would write a row', () => {
      expect(writesOf(report({}))).toBe(2);
      expect(writesOf(report({ created: 0, unchanged: 3, mode: 'upsert' }))).toBe(0);
    });
  });
}
