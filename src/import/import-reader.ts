import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { parse, type CsvError } from 'csv-parse';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ImportRow } from '../interfaces/import.interface.js';
import { csvRowValue, ignoredIn, withoutIgnored, type ImportColumns } from './import-cells.js';
import { importTooLarge, invalidImport } from './import-errors.js';
import { checkedHeader, type ImportBounds, type ImportFile } from './import-file.js';
import type { ImportFormat } from './import-request.js';
import { xlsxFile } from './import-xlsx.js';

export type { ImportBounds, ImportFile } from './import-file.js';

/** Express's request, or Fastify's (whose Node request is `raw`). */
export interface ImportRequest {
  headers: Record<string, string | string[] | undefined>;
  raw?: IncomingMessage;
  body?: unknown;
}

/**
 * Reads the whole file of an import request, within its bounds, before anything is written: CSV,
 * NDJSON and XLSX (its first sheet, see `xlsxFile`) streamed from the request (a `Content-Length` past `importMaxBytes` refused before
 * any byte is read), a JSON array as the app's JSON parser read it (within the app's body limit),
 * or read here when no parser did. A file that cannot be read is a 400 `MR_INVALID_IMPORT` naming
 * its row; one past a bound a 413 `MR_IMPORT_TOO_LARGE`; a client silent for `importBodyTimeout` a 408.
 */
export async function readImportFile(request: ImportRequest, format: ImportFormat, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  if (Number(request.headers['content-length']) > bounds.importMaxBytes) throw importTooLarge('importMaxBytes', bounds.importMaxBytes);
  const parsed = request.body;
  if (parsed !== undefined && parsed !== null && typeof parsed === 'object' && !Buffer.isBuffer(parsed)) {
    // A parser of the app (JSON, or a form's) read the body already.
    if (format !== 'json') {
      const type =
        String(request.headers['content-type'] ?? '')
          .split(';')[0]
          .trim() || 'none';
      throw new ModelRoutesException(
        'MR_UNSUPPORTED_MEDIA_TYPE',
        `The body was parsed by the app before the route (Content-Type: ${type}): send ${format} with its own Content-Type`,
      );
    }
    return jsonFile(parsed, bounds, columns);
  }
  const stream = requestStream(request);
  const bytes = bounded(stream, bounds);
  try {
    if (format === 'csv') return await csvFile(bytes, bounds, columns);
    if (format === 'ndjson') return await ndjsonFile(bytes, bounds, columns);
    if (format === 'xlsx') return await xlsxFile(bytes, bounds, columns);
    const chunks: Buffer[] = [];
    for await (const chunk of bytes) chunks.push(chunk);
    let value: unknown;
    try {
      value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      throw new ModelRoutesException('MR_INVALID_JSON', `The request body is not valid JSON (${(error as Error).message})`);
    }
    return jsonFile(value, bounds, columns);
  } catch (error) {
    // What still arrives is discarded, so that the answer reaches the client (see `UploadSource.stop`).
    stream.resume();
    throw error;
  }
}

function jsonFile(value: unknown, bounds: ImportBounds, columns: ImportColumns): ImportFile {
  if (!Array.isArray(value)) throw invalidImport(undefined, 'a JSON body must be an array of objects');
  if (value.length > bounds.importMaxRows) throw importTooLarge('importMaxRows', bounds.importMaxRows);
  const ignored = new Set<string>();
  const rows = value.map((element, index) => {
    if (Buffer.byteLength(JSON.stringify(element) ?? '') > bounds.importMaxRowBytes)
      throw importTooLarge('importMaxRowBytes', bounds.importMaxRowBytes, index + 1);
    return row(index + 1, element, columns, ignored);
  });
  return { rows, ignored: [...ignored] };
}

/** One JSON row, without the keys the import ignores (noted in `ignored`). */
function row(number: number, element: unknown, columns: ImportColumns, ignored: Set<string>): ImportRow {
  if (element && typeof element === 'object' && !Array.isArray(element)) for (const key of ignoredIn(Object.keys(element), columns)) ignored.add(key);
  return { row: number, value: withoutIgnored(element, columns) };
}

async function ndjsonFile(bytes: AsyncIterable<Buffer>, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  const rows: ImportRow[] = [];
  const ignored = new Set<string>();
  let line = 0;
  const take = (text: Buffer) => {
    line++;
    if (text.length > bounds.importMaxRowBytes) throw importTooLarge('importMaxRowBytes', bounds.importMaxRowBytes, line);
    const source = text.toString('utf8').trim();
    if (source === '') return;
    if (rows.length === bounds.importMaxRows) throw importTooLarge('importMaxRows', bounds.importMaxRows);
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      throw invalidImport(line, `not a JSON value (${(error as Error).message})`);
    }
    rows.push(row(line, value, columns, ignored));
  };
  let rest = Buffer.alloc(0);
  for await (const chunk of bytes) {
    let buffer = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = buffer.indexOf(0x0a); end >= 0; end = buffer.indexOf(0x0a)) {
      take(buffer.subarray(0, end));
      buffer = buffer.subarray(end + 1);
    }
    // A line that grows past the bound is refused before the rest of it is read.
    if (buffer.length > bounds.importMaxRowBytes) throw importTooLarge('importMaxRowBytes', bounds.importMaxRowBytes, line + 1);
    rest = Buffer.from(buffer);
  }
  if (rest.length) take(rest);
  return { rows, ignored: [...ignored] };
}

async function csvFile(bytes: AsyncIterable<Buffer>, bounds: ImportBounds, columns: ImportColumns): Promise<ImportFile> {
  let header: string[] = [];
  const source = Readable.from(bytes);
  const parser = source.pipe(
    parse({
      bom: true,
      skip_empty_lines: true,
      max_record_size: bounds.importMaxRowBytes,
      columns: (names: string[]) => (header = checkedHeader(names)),
    }),
  );
  // A failure of the body (past a bound, a time-out) ends the parse with it.
  source.on('error', (error) => parser.destroy(error));
  const rows: ImportRow[] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      if (rows.length === bounds.importMaxRows) throw importTooLarge('importMaxRows', bounds.importMaxRows);
      rows.push({ row: rows.length + 1, value: csvRowValue(record, columns) });
    }
  } catch (error) {
    parser.destroy();
    if (error instanceof ModelRoutesException) throw error;
    const { code, message, records } = error as CsvError & { records?: number };
    const at = (records ?? rows.length) + 1;
    if (code === 'CSV_MAX_RECORD_SIZE') throw importTooLarge('importMaxRowBytes', bounds.importMaxRowBytes, at);
    throw invalidImport(header.length ? at : 0, message);
  }
  return { rows, ignored: ignoredIn(header, columns) };
}

/** The request's body as a stream: the request itself, or a body a parser has already read as bytes or text. */
function requestStream(request: ImportRequest): Readable {
  if (Buffer.isBuffer(request.body)) return Readable.from([request.body]);
  if (typeof request.body === 'string') return Readable.from([Buffer.from(request.body)]);
  return (request.raw ?? (request as unknown as IncomingMessage)) as Readable;
}

/** The bytes of the body, at most `importMaxBytes` of them, each chunk awaited at most `importBodyTimeout` milliseconds. */
async function* bounded(stream: Readable, bounds: ImportBounds): AsyncGenerator<Buffer> {
  const iterator = stream.iterator({ destroyOnReturn: false });
  let received = 0;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(timedOut(bounds.importBodyTimeout)), bounds.importBodyTimeout).unref();
    });
    let next: IteratorResult<unknown>;
    try {
      next = await Promise.race([iterator.next(), expired]);
    } catch (error) {
      throw error instanceof ModelRoutesException ? error : invalidImport(undefined, 'the body was interrupted before its end');
    } finally {
      clearTimeout(timer);
    }
    if (next.done) break;
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(String(next.value));
    received += chunk.length;
    if (received > bounds.importMaxBytes) throw importTooLarge('importMaxBytes', bounds.importMaxBytes);
    yield chunk;
  }
  if ((stream as Partial<IncomingMessage>).complete === false) throw invalidImport(undefined, 'the body was interrupted before its end');
}

function timedOut(ms: number): ModelRoutesException {
  return new ModelRoutesException(
    'MR_REQUEST_TIMEOUT',
    `The import's body stopped arriving (no bytes for ${ms} ms: search.importBodyTimeout). Nothing was written`,
    undefined,
    { Connection: 'close' },
  );
}
