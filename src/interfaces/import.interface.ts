/**
 * How an import writes its rows: `create` makes a document of every row; `upsert` updates the
 * document a row's id field names (the resource's `id` field), and creates the others.
 *
 * @publicApi
 */
export type ImportMode = 'create' | 'upsert';

/**
 * One refused row of an import: its number (1-based; the CSV header is not counted; an NDJSON
 * file's line) and the error the same write would have answered alone.
 *
 * @publicApi
 */
export interface ImportRowError {
  row: number;
  code: string;
  message: string;
  details?: Array<{ path: string; message: string }>;
}

/**
 * What `POST /<plural>/import` answers: how many rows the file held, what became of them, the
 * columns (or keys) it ignored, and every refused row.
 *
 * @publicApi
 */
export interface ImportReport {
  mode: ImportMode;
  /** `true`: every row was checked, nothing was written; the counts say what the import would do. */
  dryRun: boolean;
  rows: number;
  created: number;
  updated: number;
  /** Rows of an upsert whose document already holds every value they give: nothing written. */
  unchanged: number;
  refused: number;
  /** Columns (keys) that an export writes and no write may (version key, timestamps, `readonly` fields, virtuals): skipped. */
  ignored: string[];
  errors: ImportRowError[];
}

/**
 * One row of a file to import, as read: its number and its fields (a CSV record already made an object).
 *
 * @publicApi
 */
export interface ImportRow {
  row: number;
  value: unknown;
}

/**
 * What the handler of `POST /<plural>/import` is given: the file's rows, read and bounded, and
 * what the request asks; `run()` checks and writes them through the resource's repository and
 * answers the report. Override `import(batch)` to refuse an import (throw), or to act on its report.
 *
 * @publicApi
 */
export interface ImportBatch {
  readonly mode: ImportMode;
  readonly dryRun: boolean;
  readonly rows: readonly ImportRow[];
  /**
   * Checks and writes the rows, and answers the report. `serverFields` are set on every row after
   * its check, as `create(body, serverFields)` sets them, and may name hidden and `readonly`
   * fields (`batch.run({ serverFields: { createdBy: user.id } })`).
   */
  run(options?: { serverFields?: Record<string, unknown> }): Promise<ImportReport>;
}
