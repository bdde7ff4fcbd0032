import type { CountPolicy } from '../metadata/count-policies.js';

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
    /**
     * Documents that match the query, ignoring `limit` and `skip`, as `counted` says: absent when
     * nothing was counted (`counted: 'none'`).
     */
    match_count?: number;
    /**
     * What `match_count` is: `'exact'`; `'estimated'` (the collection's metadata for an unfiltered
     * search, a lower bound for a filtered one); `'none'` (not counted, `match_count` absent).
     */
    counted: CountPolicy;
    /** The `limit` applied (after the default and the maximum). */
    limit: number;
    /** The `skip` applied. */
    skip: number;
    /**
     * On a sorted search (`sort`; `_id` breaks ties) with documents after this page: the cursor that
     * continues after it, sent back as `after`. Absent on the last page and on an unsorted search.
     */
    next?: string;
    /**
     * Only on the list of a document's array of references (`GET /team/:team_id/members`): the
     * identifiers the array holds that name no document (they were deleted).
     */
    missing?: string[];
  };
  result: T[];
}
