import { ModelRoutesException } from '../errors/model-routes.exception.js';

/** 400 `MR_INVALID_IMPORT`: the file cannot be read, at `row` when one is at fault (1-based; 0 for a CSV header). Nothing was written. */
export function invalidImport(row: number | undefined, message: string): ModelRoutesException {
  if (row === undefined) return new ModelRoutesException('MR_INVALID_IMPORT', `The file cannot be read: ${message}. Nothing was written`);
  const where = row === 0 ? 'The header row' : `Row ${row}`;
  return new ModelRoutesException('MR_INVALID_IMPORT', `${where} of the file cannot be read: ${message}. Nothing was written`, [
    { path: String(row), message },
  ]);
}

/** 413 `MR_IMPORT_TOO_LARGE`: the file is past `bound` (a `search` option), at `row` when one is at fault. Nothing was written; the connection is closed. */
export function importTooLarge(bound: 'importMaxRows' | 'importMaxBytes' | 'importMaxRowBytes', limit: number, row?: number): ModelRoutesException {
  const what = { importMaxRows: `more than ${limit} rows`, importMaxBytes: `more than ${limit} bytes`, importMaxRowBytes: `a row of more than ${limit} bytes` }[
    bound
  ];
  const message = `The file holds ${what} (search.${bound}). Nothing was written`;
  const details = row === undefined ? undefined : [{ path: String(row), message: `larger than ${limit} bytes` }];
  // The rest of the body is not read: the connection is closed once the answer is sent, as an upload's 413 closes it.
  return new ModelRoutesException('MR_IMPORT_TOO_LARGE', message, details, { Connection: 'close' });
}
