/**
 * A resource's "Import": the formats `POST /<plural>/import` reads, the query of a check (a dry
 * run) and of the import itself, and the words of its report. A pure module (no DOM), unit-tested
 * without a browser; the report's type is held against the server's by `wire-contract.spec.ts`.
 */

/** The formats the import route reads (`?format=`), CSV first: the default. */
export const IMPORT_FORMATS = {
  csv: { label: 'CSV', mediaType: 'text/csv', extensions: ['csv'] },
  ndjson: { label: 'NDJSON', mediaType: 'application/x-ndjson', extensions: ['ndjson', 'jsonl'] },
  json: { label: 'JSON (an array)', mediaType: 'application/json', extensions: ['json'] },
  xlsx: { label: 'XLSX (its first sheet)', mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extensions: ['xlsx'] },
} as const;

export type ImportFormat = keyof typeof IMPORT_FORMATS;

/** `create`: every row makes a document; `upsert`: a row that gives the id field updates its document, the others are created. */
export type ImportMode = 'create' | 'upsert';

/** One refused row: its number (1-based, the CSV header not counted) and the error its write alone would have answered. */
export interface ImportRowError {
  row: number;
  code: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

/** What the import route answers: the counts, the columns it ignored, every refused row. */
export interface ImportReport {
  mode: ImportMode;
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  refused: number;
  ignored: string[];
  errors: ImportRowError[];
}

/** What one run sends: the file, its format and the mode; `dryRun` for a check. */
export interface ImportRun {
  format: ImportFormat;
  mode: ImportMode;
  dryRun: boolean;
}

/** The format a file's name says (`reports.csv`, `rows.jsonl`), if any. */
export function importFormatOf(fileName: string): ImportFormat | undefined {
  const extension = /\.([^.]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (!extension) return undefined;
  return (Object.keys(IMPORT_FORMATS) as ImportFormat[]).find((format) => (IMPORT_FORMATS[format].extensions as readonly string[]).includes(extension));
}

/** `mode=upsert&dryRun=true&format=csv`, and the body's `Content-Type` (the format's: a JSON array is read by the app's JSON parser, which needs it). */
export function importRequest({ format, mode, dryRun }: ImportRun): { query: URLSearchParams; contentType: string } {
  const query = new URLSearchParams({ mode, format });
  if (dryRun) query.set('dryRun', 'true');
  return { query, contentType: IMPORT_FORMATS[format].mediaType };
}

/** The report's counts, labelled as a check (`Would be created`) or an import (`Created`) says them; `unchanged` only for an upsert. */
export function reportCounts(report: ImportReport): Array<[label: string, count: number]> {
  const would = (verb: string) => (report.dryRun ? `Would be ${verb}` : humanVerb(verb));
  const counts: Array<[string, number]> = [
    ['Rows', report.rows],
    [would('created'), report.created],
    [would('updated'), report.updated],
  ];
  if (report.mode === 'upsert') counts.push([report.dryRun ? 'Would stay unchanged' : 'Unchanged', report.unchanged]);
  counts.push(['Refused', report.refused]);
  return counts;
}

/** One sentence for the status line: `Checked 3 rows: 2 would be created, 1 refused. Nothing was written.` */
export function reportSummary(report: ImportReport): string {
  const rows = `${report.rows} row${report.rows === 1 ? '' : 's'}`;
  const parts = report.dryRun
    ? [
        `${report.created} would be created`,
        `${report.updated} updated`,
        report.mode === 'upsert' && `${report.unchanged} unchanged`,
        `${report.refused} refused`,
      ]
    : [`${report.created} created`, `${report.updated} updated`, report.mode === 'upsert' && `${report.unchanged} unchanged`, `${report.refused} refused`];
  const said = parts.filter(Boolean).join(', ');
  return report.dryRun ? `Checked ${rows}: ${said}. Nothing was written.` : `Imported ${rows}: ${said}.`;
}

/** How many rows the import would write: a check whose rows are all refused or unchanged offers no import. */
export function writesOf(report: ImportReport): number {
  return report.created + report.updated;
}

function humanVerb(verb: string): string {
  return verb.charAt(0).toUpperCase() + verb.slice(1);
}
