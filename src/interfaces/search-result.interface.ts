/**
 * The envelope of every list route.
 */
export interface SearchResult<T = Record<string, unknown>> {
  status: {
    /** Documents of this model in the database. */
    count: number;
    /** Items in `result`. */
    search_count: number;
    /** Documents that match the query, ignoring `limit` and `skip`. */
    match_count: number;
    /** The `limit` applied (after the default and the maximum). */
    limit: number;
    /** The `skip` applied. */
    skip: number;
  };
  result: T[];
}
