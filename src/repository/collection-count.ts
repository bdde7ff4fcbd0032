import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';

/**
 * Server error codes meaning "this deployment will not run `$collStats` for you", whatever the
 * request: no `collStats` privilege (13 Unauthorized), an engine without the stage (40324
 * unrecognized stage, 59 CommandNotFound, 115 CommandNotSupported, 238 NotImplemented), a view
 * (166 CommandNotSupportedOnView). Anything else (a time limit, a lost connection) is a failure
 * of that one request and is thrown as it is, but for 26 (NamespaceNotFound: a collection not
 * created yet), which the estimate answers with 0.
 */
export const COLL_STATS_REFUSED = new Set([13, 59, 115, 166, 238, 40324]);
const NAMESPACE_NOT_FOUND = 26;

/**
 * How a collection's size is read: what the engine answers to each, as plain
 * functions, read where `readPreference` says (the connection's default when absent).
 */
export interface CountSources {
  /** The documents of `aggregate([{ $collStats: { count: {} } }])`: one per shard on a sharded cluster. */
  collStats(readPreference?: ReadPreferenceMode): Promise<readonly { count?: unknown }[]>;
  /** `estimatedDocumentCount()`. */
  estimated(readPreference?: ReadPreferenceMode): Promise<number>;
}

/**
 * The number of documents in one collection (the envelope's `count`), from collection metadata,
 * never from a scan: `$collStats` (summed over shards), else `estimatedDocumentCount()`.
 *
 * A deployment that refuses the stage (see `COLL_STATS_REFUSED`) is asked for the estimate from
 * then on: the refusal is remembered, so the stage is tried once. A stage that answers no count
 * (a negative or missing one: FerretDB on PostgreSQL before the table was first analysed reports
 * `-1`) gets the estimate for that request only, as the metadata may have it next time.
 */
export class CollectionCount {
  private refused = false;

  constructor(private readonly sources: CountSources) {}

  /** @param readPreference where to read (a search route's `readPreference`) */
  async read(readPreference?: ReadPreferenceMode): Promise<number> {
    if (this.refused) return this.sources.estimated(readPreference);
    let shards: readonly { count?: unknown }[];
    try {
      shards = await this.sources.collStats(readPreference);
    } catch (error) {
      const code = (error as { code?: unknown }).code as number;
      if (code === NAMESPACE_NOT_FOUND) return this.sources.estimated(readPreference);
      if (!COLL_STATS_REFUSED.has(code)) throw error;
      this.refused = true;
      return this.sources.estimated(readPreference);
    }
    const total = shards.reduce((sum, shard) => sum + (isCount(shard.count) ? shard.count : Number.NaN), 0);
    return shards.length > 0 && Number.isFinite(total) ? total : this.sources.estimated(readPreference);
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
