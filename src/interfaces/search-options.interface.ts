/**
 * Limits applied to every search route (`GET|POST /<plural>` and the reverse reference routes).
 *
 * @publicApi
 */
export interface SearchOptions {
  /** `limit` when the client sends none. Default 20. */
  defaultLimit?: number;
  /** Largest `limit` applied; a larger request is clamped and `status.limit` reports the value used. Default 100. */
  maxLimit?: number;
  /** Largest `skip` accepted; beyond it the client gets a 400. Default 10000. */
  maxSkip?: number;
  /** Longest `$regex` pattern accepted, in characters. Default 256. */
  maxRegexLength?: number;
  /** Whether clients may use `$regex` at all. Default true. */
  allowRegex?: boolean;
  /** Deepest nesting of objects and arrays accepted in a query. Default 8. */
  maxQueryDepth?: number;
  /** Most keys and array items accepted in one query. Default 1000. */
  maxQueryNodes?: number;
  /**
   * Time limit of every database operation of the routes (searches, counts, reads and writes), in
   * milliseconds, enforced by the server (`maxTimeMS`). A search that exceeds it is a 422
   * `MR_QUERY_TIMEOUT`. Default 5000.
   */
  maxTimeMS?: number;
}

/** Search options with every default filled in. */
export type ResolvedSearchOptions = Required<SearchOptions>;
