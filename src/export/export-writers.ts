import { Duplex, PassThrough, Transform, Writable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { cellsOf, neutralized } from './export-cells.js';
import type { ExportFormat } from './export-formats.js';

/** A document of an export, as the client would read it from a search (identifiers as strings, its view applied). */
export type ExportedDocument = Record<string, unknown>;

/**
 * The stages that turn the documents of an export (written one by one, in object mode) into the
 * bytes of its format: CSV through csv-stringify (a header row, then a row per document,
 * formula-like text neutralised), NDJSON (a line per document), JSON (one array), XLSX through
 * exceljs's streaming workbook writer (a sheet named after the resource, a header row, typed cells).
 * Each stage honours backpressure: a slow client slows the reads, it does not fill the memory.
 */
export async function exportStages(format: ExportFormat, columns: readonly string[], sheet: string): Promise<Duplex[]> {
  switch (format) {
    case 'csv':
      return [rows(columns), stringify({ header: true, columns: [...columns], bom: true, cast: { boolean: (value) => String(value) } })];
    case 'ndjson':
      return [lines((doc) => `${JSON.stringify(doc)}\n`)];
    case 'json':
      return [jsonArray()];
    case 'xlsx':
      return [await workbook(columns, sheet)];
  }
}

/** Each document as its row of cells, text that would run as a formula neutralised (`neutralized`). */
function rows(columns: readonly string[]): Transform {
  return new Transform({
    objectMode: true,
    transform(doc: ExportedDocument, _encoding, done) {
      done(null, cellsOf(doc, columns).map(neutralized));
    },
  });
}

function lines(line: (doc: ExportedDocument) => string): Transform {
  return new Transform({
    writableObjectMode: true,
    transform(doc: ExportedDocument, _encoding, done) {
      done(null, line(doc));
    },
  });
}

function jsonArray(): Transform {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    transform(doc: ExportedDocument, _encoding, done) {
      const text = `${first ? '[' : ',\n'}${JSON.stringify(doc)}`;
      first = false;
      done(null, text);
    },
    flush(done) {
      done(null, first ? '[]' : ']\n');
    },
  });
}

type ExcelJs = typeof import('exceljs');
let loading: Promise<ExcelJs> | undefined;

/**
 * The `exceljs` package (an optional peer), loaded the first time an XLSX export or import is asked
 * for; without it, a 400 `MR_INVALID_QUERY` naming `format`: `what` needs it (`An XLSX export`), the
 * client may send one of `others` instead.
 */
export async function loadExcelJs(what: string, others: string): Promise<ExcelJs> {
  loading ??= import('exceljs').then(
    (module) => ((module as { default?: ExcelJs }).default ?? module) as ExcelJs,
    () => {
      loading = undefined;
      return undefined as never;
    },
  );
  const excel = await loading;
  if (!excel) throw ModelRoutesException.invalidQuery('format', `${what} needs the exceljs package on the server (npm install exceljs); send ${others}`);
  return excel;
}

/** A sheet name as spreadsheets take it: at most 31 characters, none of `[]:*?/\`. */
function sheetName(name: string): string {
  return name.replace(/[[\]:*?/\\]/g, '_').slice(0, 31) || 'Sheet1';
}

/**
 * An XLSX workbook written as its rows arrive (exceljs's `WorkbookWriter`, without shared strings
 * or styles, so that nothing grows with the rows): a header row, then one committed row per
 * document. Text cells are stored as text, never as formulas, so nothing is neutralised. A row is
 * taken once the zip's output is below its mark, so the client's pace sets the reads' pace.
 */
async function workbook(columns: readonly string[], name: string): Promise<Duplex> {
  const excel = await loadExcelJs('An XLSX export', 'csv, ndjson or json');
  const output = new PassThrough();
  const book = new excel.stream.xlsx.WorkbookWriter({ stream: output, useStyles: false, useSharedStrings: false });
  const sheet = book.addWorksheet(sheetName(name));
  sheet.addRow([...columns]).commit();
  const input = new Writable({
    objectMode: true,
    write(doc: ExportedDocument, _encoding, done) {
      sheet.addRow(cellsOf(doc, columns)).commit();
      if (output.writableNeedDrain) output.once('drain', () => done());
      else done();
    },
    final(done) {
      sheet.commit();
      book.commit().then(() => done(), done);
    },
  });
  return Duplex.from({ writable: input, readable: output });
}
