/**
 * The envelope of every list route.
 *
 * @publicApi
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
    /**
     * Only on the list of a document's array of references (`GET /team/:team_id/members`): the
     * identifiers the array holds that name no document (they were deleted).
     */
    missing?: string[];
  };
  result: T[];
}
