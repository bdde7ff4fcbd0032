/**
 * What became of one document of a bulk change: `updated` or `deleted`; `skipped` when, by its turn,
 * it no longer matched the filter or was gone (another write got in between); `refused` when its
 * own write was refused (a validator, a duplicate key, an `onDelete: 'restrict'` reference), with
 * that write's `code`, `message` and `details`; `matched` in a dry run.
 *
 * @publicApi
 */
export interface BulkItem {
  /** The document's identifier (its `id` field), as a path would hold it. */
  id: string;
  result: 'updated' | 'deleted' | 'skipped' | 'refused' | 'matched';
  code?: string;
  message?: string;
  details?: Array<{ path: string; message: string }>;
}

/**
 * What `PATCH /<plural>` and `DELETE /<plural>` answer (and `updateMany`, `deleteMany` of the
 * repository): how many documents the filter matched, what became of them, and each of them by
 * its identifier, in `_id` order.
 *
 * @publicApi
 */
export interface BulkReport {
  /** `true`: the documents were counted and listed, nothing was written. */
  dryRun: boolean;
  matched: number;
  /** `updateMany`: documents changed. */
  updated?: number;
  /** `deleteMany`: documents deleted. */
  deleted?: number;
  /** Documents that no longer matched, or were gone, when their turn came: not written. */
  skipped: number;
  /** Documents whose own write was refused; their items say why. */
  refused: number;
  items: BulkItem[];
}

/**
 * Options of the repository's `updateMany` and `deleteMany`.
 *
 * @publicApi
 */
export interface BulkOptions {
  /** Count and list the matches, write nothing. */
  dryRun?: boolean;
  /**
   * Most documents the change may touch: a filter that matches more is refused whole (a 400
   * `MR_BULK_TOO_LARGE` that says how many it matches), nothing written. Default: the resource's
   * `search.bulkMaxDocuments`.
   */
  maxDocuments?: number;
}
