import { AsyncLocalStorage } from 'node:async_hooks';
import { unlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Readable, type Transform } from 'node:stream';
import type { Cell, Row, stream } from 'exceljs';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { ignoredIn, xlsxRowValue, type ImportColumns } from './import-cells.js';
import { importTooLarge, invalidImport } from './import-errors.js';
import { checkedHeader, type ImportBounds, type ImportFile } from './import-file.js';
import { loadExcelJs } from '../export/export-writers.js';

type ExcelJs = typeof import('exceljs');
type WorkbookReader = stream.xlsx.WorkbookReader;
type WorksheetReader = stream.xlsx.WorksheetReader;

/**
 * How many times `search.importMaxBytes` the parts of an XLSX file may hold once unzipped, all
 * together: the bound of a zip bomb (a small file that inflates hugely), counted as the parts are
 * inflated, before exceljs parses them or sets them aside in a temporary file.
 */
export const XLSX_MAX_INFLATION = 32;

/** The signature of a zip's end of central directory record, which a whole file ends with (22 bytes and a comment of at most 65535). */
const END_OF_DIRECTORY = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const END_OF_DIRECTORY_BYTES = 22 + 0xffff;

/** A temporary file's cleanup (it closes `tmp`'s descriptor, then removes the file), and whether it was called. */
interface TmpFile {
  cleanup: (next?: () => void) => void;
  called: boolean;
}

/** The temporary files `tmp.file()` made for the import in progress, and whether the import has ended. */
interface TmpFiles {
  files: TmpFile[];
  ended: boolean;
}

const tmpFilesOfImport = new AsyncLocalStorage<TmpFiles>();
const TMP_CAPTURED = Symbol.for('nestjs-model-routes.tmp-captured');

/**
 * exceljs sets a sheet aside with the `tmp` package's `tmp.file()`, which opens a descriptor that
 * only the file's cleanup closes, and exceljs calls that cleanup only once the sheet is read to its
 * end: a read that stops half-way (a refused file) would leave one descriptor open per file, for as
 * long as the process lives, so hostile files could exhaust them. The calls made by an import
 * (`tmpFilesOfImport`) are noted with their cleanup, each called when the import ends (at once for
 * one made after it ended); calls made elsewhere in the process pass through as they were. The
 * `tmp` module is exceljs's own (resolved from it).
 */
function captureTmpFiles(): void {
  let tmp: { file: (...args: unknown[]) => unknown; [TMP_CAPTURED]?: true };
  try {
    const require = createRequire(import.meta.url);
    tmp = createRequire(require.resolve('exceljs'))('tmp') as typeof tmp;
  } catch {
    return;
  }
  if (tmp[TMP_CAPTURED]) return;
  const file = tmp.file;
  tmp.file = function (this: unknown, ...args: unknown[]) {
    const files = tmpFilesOfImport.getStore();
    const last = args.length - 1;
    const callback = args[last];
    if (files && typeof callback === 'function') {
      args[last] = (error: unknown, path: unknown, fd: unknown, cleanup: unknown) => {
        if (error || typeof cleanup !== 'function') return (callback as (...values: unknown[]) => void)(error, path, fd, cleanup);
        // `tmp` ignores a second call of a cleanup without calling its callback back: who calls first is noted.
        const file: TmpFile = { cleanup: cleanup as TmpFile['cleanup'], called: false };
        const once = (next?: () => void) => {
          if (file.called) return next?.();
          file.called = true;
          return file.cleanup(next);
        };
        files.files.push(file);
        if (files.ended) once();
        (callback as (...values: unknown[]) => void)(error, path, fd, once);
      };
    }
    return file.apply(this, args);
  };
  tmp[TMP_CAPTURED] = true;
}

/** Calls the cleanup of every temporary file of an import that exceljs did not call, now and for any made later. */
async function cleanTmpFiles(tmpFiles: TmpFiles): Promise<void> {
  tmpFiles.ended = true;
  const left = tmpFiles.files.filter((file) => !file.called);
  await Promise.all(
    left.map((file) => {
      file.called = true;
      return new Promise<void>((resolve) => file.cleanup(() => resolve()));
    }),
  );
}

/**
 * The rows of an XLSX file, read as it arrives by exceljs's streaming `WorkbookReader`: its first
 * worksheet (the workbook's first tab), whose first non-empty row is the header and each later
 * non-empty row a record, read as a CSV record is (`xlsxRowValue`), its cells typed (numbers,
 * booleans, dates as ISO 8601, rich text as its text). A formula or an error value is refused with
 * the file: its cached result is whatever the program that saved it computed, and nothing here can
 * compute it again. A file that is not a whole XLSX file (a truncated zip, other bytes, no sheet)
 * is a 400 `MR_INVALID_IMPORT`; past `importMaxRows`, `importMaxRowBytes` (a row as JSON) or
 * `XLSX_MAX_INFLATION` × `importMaxBytes` unzipped, a 413.
 */
export async function xlsxFile(bytes: AsyncIterable<Buffer>, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  const excel = await loadExcelJs('An XLSX import', 'csv, ndjson or json');
  captureTmpFiles();
  const tmpFiles: TmpFiles = { files: [], ended: false };
  return tmpFilesOfImport.run(tmpFiles, async () => {
    try {
      return await readXlsx(excel, bytes, bounds, columns);
    } finally {
      await cleanTmpFiles(tmpFiles);
    }
  });
}

async function readXlsx(excel: ExcelJs, bytes: AsyncIterable<Buffer>, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_resolve, reject) => (fail = reject));
  // Once every byte has arrived, the read has `importBodyTimeout` to end: a zip whose parts do not end where its
  // directory says can leave the unzipping waiting for bytes that will never come (found by the seeded fuzz).
  let stalled: NodeJS.Timeout | undefined;
  const arrived = () => {
    stalled = setTimeout(
      () =>
        fail(
          invalidImport(undefined, `it is not an XLSX file that can be read: its parts were still unread ${bounds.importBodyTimeout} ms after its last byte`),
        ),
      bounds.importBodyTimeout,
    );
  };
  const source = Readable.from(wholeZip(bytes, fail, arrived));
  source.on('error', fail);
  const temporary = new TemporaryFiles();
  watchParts(source, XLSX_MAX_INFLATION * bounds.importMaxBytes, fail, temporary);
  const reader = new excel.stream.xlsx.WorkbookReader(source, {
    worksheets: 'emit',
    sharedStrings: 'cache',
    styles: 'cache',
    hyperlinks: 'ignore',
    entries: 'ignore',
  });
  temporary.watch(reader);
  const reading = firstSheet(reader, excel, bounds, columns);
  // Whichever loses the race is settled later, unheard.
  reading.catch(() => undefined);
  failed.catch(() => undefined);
  try {
    return await Promise.race([reading, failed]);
  } catch (error) {
    source.destroy();
    if (error instanceof ModelRoutesException) throw error;
    throw invalidImport(undefined, `it is not an XLSX file (${(error as Error)?.message ?? error})`);
  } finally {
    clearTimeout(stalled);
    await temporary.remove();
  }
}

/** A file's stream (fs.ReadStream, fs.WriteStream), or anything else exceljs pipes to or reads from, which `note` leaves alone. */
type FileStream = Pick<Readable, 'destroy' | 'closed' | 'on' | 'once'> & { path?: unknown };

/**
 * The temporary files exceljs sets a sheet aside in when it arrives before the parts it needs to
 * read it (the shared strings, the styles: so in most files, Excel's and exceljs's own). exceljs
 * removes one once the sheet after it is asked for; one left behind by a refusal half-way is
 * closed and removed here, and so is any that exceljs still makes after the import has ended.
 */
class TemporaryFiles {
  private readonly streams = new Set<FileStream>();
  private ended = false;

  /** A part of the zip, whose pipe to a file stream (a sheet set aside) is noted. */
  written(part: Readable): void {
    const pipe = part.pipe.bind(part);
    part.pipe = <T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }): T => {
      this.note(destination as unknown as FileStream);
      return pipe(destination, options);
    };
  }

  /** The sheets read back from their files. */
  watch(reader: WorkbookReader): void {
    const parsed = reader as unknown as { _parseWorksheet(iterator: unknown, sheetNo: string): unknown };
    const parse = parsed._parseWorksheet.bind(reader);
    parsed._parseWorksheet = (iterator, sheetNo) => {
      this.note(iterator as FileStream);
      return parse(iterator, sheetNo);
    };
  }

  /** Closes and removes every file noted, and those noted from now on. */
  async remove(): Promise<void> {
    this.ended = true;
    await Promise.all([...this.streams].map((stream) => this.removed(stream)));
  }

  private note(stream: FileStream): void {
    if (typeof stream.path !== 'string' || typeof stream.destroy !== 'function' || typeof stream.once !== 'function') return;
    this.streams.add(stream);
    if (this.ended) void this.removed(stream);
  }

  private async removed(stream: FileStream): Promise<void> {
    if (!stream.closed) {
      const closed = new Promise((resolve) => stream.once('close', resolve));
      // With an error, so that exceljs's read, if it still waits on the file, ends; heard here, whoever else listens.
      stream.on('error', () => undefined);
      stream.destroy(new Error('The import has ended'));
      // A file stream still opening opens (and so makes the file again) before it closes.
      await closed;
    }
    await unlink(stream.path as string).catch(() => undefined);
  }
}

/**
 * The body's bytes, passed on; once they end, a body without a zip's end (truncated, empty, other bytes) fails the read,
 * whatever the unzipping waits for, and a whole one is told `arrived`.
 */
async function* wholeZip(bytes: AsyncIterable<Buffer>, fail: (error: unknown) => void, arrived: () => void): AsyncGenerator<Buffer> {
  let tail = Buffer.alloc(0);
  for await (const chunk of bytes) {
    tail = Buffer.concat([tail, chunk]);
    if (tail.length > END_OF_DIRECTORY_BYTES) tail = tail.subarray(tail.length - END_OF_DIRECTORY_BYTES);
    yield chunk;
  }
  const end = tail.lastIndexOf(END_OF_DIRECTORY);
  if (end < 0 || tail.length - end < 22) fail(invalidImport(undefined, 'it is not a whole XLSX file (its zip has no end: truncated, or other bytes)'));
  else arrived();
}

/**
 * Counts the bytes of every part of the zip as it is inflated (exceljs pipes `source` into
 * unzipper's parser, whose parts are PassThrough streams pushed one by one): past `limit`, the
 * read fails with a 413 and the part is never fed on, so nothing more is inflated. Notes the
 * parts set aside in temporary files.
 */
function watchParts(source: Readable, limit: number, fail: (error: unknown) => void, temporary: TemporaryFiles): void {
  let inflated = 0;
  const pipe = source.pipe.bind(source);
  source.pipe = <T extends NodeJS.WritableStream>(zip: T, options?: { end?: boolean }): T => {
    const parser = zip as unknown as Readable;
    const push = parser.push.bind(parser);
    parser.push = (part: unknown, encoding?: BufferEncoding) => {
      if (part && typeof part === 'object' && typeof (part as Transform)._transform === 'function') {
        (part as Transform)._transform = (chunk: Buffer, _encoding, done) => {
          inflated += chunk.length;
          if (inflated > limit) fail(tooInflated(limit));
          else done(null, chunk);
        };
        temporary.written(part as Transform);
      }
      return push(part, encoding);
    };
    return pipe(zip, options);
  };
}

/** 413 `MR_IMPORT_TOO_LARGE`, as `importTooLarge` answers past `importMaxBytes` (the connection closed, the rest of the body unread). */
function tooInflated(limit: number): ModelRoutesException {
  return new ModelRoutesException(
    'MR_IMPORT_TOO_LARGE',
    `The XLSX file holds more than ${limit} bytes once unzipped (${XLSX_MAX_INFLATION} × search.importMaxBytes). Nothing was written`,
    undefined,
    { Connection: 'close' },
  );
}

/**
 * The first tab's rows. The other sheets are read past (their bytes counted), not parsed; after a
 * refusal of the first tab too, so that exceljs ends its read and removes its temporary files.
 */
async function firstSheet(reader: WorkbookReader, excel: ExcelJs, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  let file: ImportFile | undefined;
  let refusal: unknown;
  for await (const sheet of reader) {
    if (file || refusal !== undefined || !isFirstTab(reader, sheet)) continue;
    try {
      file = await sheetRows(sheet, excel, bounds, columns);
    } catch (error) {
      refusal = error;
    }
  }
  if (refusal !== undefined) throw refusal;
  if (!file) throw invalidImport(undefined, 'it holds no worksheet');
  return file;
}

/** The sheet of the workbook's first tab, when the workbook part was read before it (else the first sheet of the zip). */
function isFirstTab(reader: WorkbookReader, sheet: WorksheetReader): boolean {
  const first = (reader as unknown as { model?: { sheets?: Array<{ name?: string }> } }).model?.sheets?.[0]?.name;
  return first === undefined || (sheet as unknown as { name?: string }).name === first;
}

async function sheetRows(sheet: WorksheetReader, excel: ExcelJs, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  let header: string[] | undefined;
  const rows: ImportFile['rows'] = [];
  for await (const row of sheet) {
    const number = header ? rows.length + 1 : 0;
    const cells = cellsOf(row, excel, number);
    if (cells.every((cell) => cell === '')) continue;
    if (!header) {
      while (cells[cells.length - 1] === '') cells.pop();
      header = checkedHeader(cells);
      continue;
    }
    if (rows.length === bounds.importMaxRows) throw importTooLarge('importMaxRows', bounds.importMaxRows);
    const beyond = cells.findIndex((cell, index) => index >= header!.length && cell !== '');
    if (beyond >= 0) throw invalidImport(number, `a cell is beyond the header's ${header.length} columns (column ${beyond + 1})`);
    const record: Record<string, string> = Object.fromEntries(header.map((name, index) => [name, cells[index] ?? '']));
    if (Buffer.byteLength(JSON.stringify(record)) > bounds.importMaxRowBytes) throw importTooLarge('importMaxRowBytes', bounds.importMaxRowBytes, number);
    rows.push({ row: number, value: xlsxRowValue(record, columns) });
  }
  return { rows, ignored: header ? ignoredIn(header, columns) : [] };
}

/** A row's cells as text, one per column from the first, an empty cell as ''. */
function cellsOf(row: Row, excel: ExcelJs, number: number): string[] {
  const cells: string[] = [];
  row.eachCell({ includeEmpty: false }, (cell, column) => {
    while (cells.length < column - 1) cells.push('');
    cells[column - 1] = cellText(cell, excel, number);
  });
  return cells;
}

/** A cell as the text a CSV file would hold: a number or a boolean as JSON writes it, a date as ISO 8601, rich text as its text, a hyperlink as its text. */
function cellText(cell: Cell, excel: ExcelJs, number: number): string {
  const { ValueType } = excel;
  const value = cell.value as unknown;
  switch (cell.type) {
    case ValueType.Null:
    case ValueType.Merge:
      return '';
    case ValueType.String:
      return value as string;
    case ValueType.Number:
    case ValueType.Boolean:
      return String(value);
    case ValueType.Date:
      return Number.isNaN((value as Date).getTime()) ? '' : (value as Date).toISOString();
    case ValueType.RichText:
      return (value as { richText: Array<{ text?: string }> }).richText.map((run) => run.text ?? '').join('');
    case ValueType.Hyperlink:
      return String((value as { text?: unknown }).text ?? '');
    case ValueType.Formula:
      throw invalidImport(number, `the cell ${cell.address} holds a formula, whose result is not read: paste its values instead`);
    case ValueType.Error:
      throw invalidImport(number, `the cell ${cell.address} holds an error value (${(value as { error?: string }).error})`);
    default:
      throw invalidImport(number, `the cell ${cell.address} holds a value of no known kind (a shared string the file lacks)`);
  }
}
