import type { CountPolicy } from '../metadata/count-policies.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';

/** How one search is counted: the policy in force, whether the search has any filter, and the bound of an estimate. */
export interface CountPlan {
  policy: CountPolicy;
  /** No condition at all (neither the client's nor a route's scope): every document matches. */
  unfiltered: boolean;
  /** `search.estimateLimit`: the most matches an estimated count of a filtered search counts. */
  estimateLimit: number;
}

/** What the page read tells: its `skip` and `limit`, and how many documents it found. */
export interface PageRead {
  skip: number;
  limit: number;
  /** The documents of the page (at most `limit`). */
  found: number;
  /** Whether matches follow the page, where the read told (one document more than `limit` asked for); else judged from `found`. */
  more?: boolean;
  /** The page continues a cursor (`after`): how many matches come before it is not known. */
  continued?: boolean;
}

/** Where the numbers come from, read only when needed. */
export interface CountReads {
  /** The matches of the search's filter (`countDocuments`), at most `limit` of them when given. */
  matches(limit?: number): Promise<number>;
  /** The collection's size from its metadata, read beside the page; absent when `needsCollectionCount` said no. */
  collection?: number;
}

/**
 * Whether a search must read the collection's size from its metadata beside its page: always,
 * but for an exact count of an unfiltered search, whose count of matches is the collection's size.
 */
export function needsCollectionCount({ policy, unfiltered }: CountPlan): boolean {
  return !(unfiltered && policy === 'exact');
}

/**
 * The envelope's `count`, `match_count` and `counted` of a search, with as few queries as the
 * policy allows:
 *
 * - `exact` counts the matches: the repository sends that count beside the page, as `reads.matches()`,
 *   so a full page waits for the slower of its two queries, not for both in turn.
 * - Otherwise a page that shows where the matches end (fewer than `limit` documents, or a read one
 *   longer with nothing after, and either `skip` 0 or at least one document, and no cursor) gives the
 *   exact number, `skip` plus the documents found, with no query.
 * - `estimated` takes the collection's metadata for an unfiltered search; for a filtered one it
 *   counts at most `estimateLimit + 1` matches: exact up to the bound, else the bound (or what the
 *   page shows, if more) as a lower bound, `counted: 'estimated'`.
 * - `none` counts nothing: no `match_count`.
 *
 * `count` is the collection's metadata, but never less than the matches known (metadata may lag
 * behind the writes), and is the exact count of matches of an unfiltered search that has one.
 */
export async function searchCounts(
  plan: CountPlan,
  page: PageRead,
  reads: CountReads,
): Promise<Pick<SearchResult['status'], 'count' | 'match_count' | 'counted'>> {
  const { match_count, counted } = await matchCount(plan, page, reads);
  const shown = page.found > 0 ? shownUpTo(page) : 0;
  const count = plan.unfiltered && counted === 'exact' ? (match_count as number) : Math.max(reads.collection ?? 0, match_count ?? shown);
  return { count, ...(match_count === undefined ? {} : { match_count }), counted };
}

async function matchCount(
  { policy, unfiltered, estimateLimit }: CountPlan,
  page: PageRead,
  reads: CountReads,
): Promise<{ match_count?: number; counted: CountPolicy }> {
  if (policy === 'none') return { counted: 'none' };
  // Exact: the count the repository sent beside the page (a full page waits for the slower of the two, not for both in turn).
  if (policy === 'exact') return { match_count: await reads.matches(), counted: 'exact' };
  const shown = shownUpTo(page);
  const ends = !(page.more ?? page.found >= page.limit);
  if (!page.continued && ends && (page.skip === 0 || page.found > 0)) return { match_count: shown, counted: 'exact' };
  if (unfiltered) {
    // A page past the end (none found after `skip`) shows that at most `skip` documents match.
    const estimate = page.found > 0 || page.continued ? Math.max(reads.collection ?? 0, shown) : Math.min(reads.collection ?? 0, page.skip);
    return { match_count: estimate, counted: 'estimated' };
  }
  const counted = await reads.matches(estimateLimit + 1);
  if (counted <= estimateLimit) return { match_count: counted, counted: 'exact' };
  return { match_count: page.found > 0 ? Math.max(estimateLimit, shown) : estimateLimit, counted: 'estimated' };
}

/** The fewest matches the page proves: those up to its end (`skip` plus the page), or the page alone after a cursor. */
function shownUpTo(page: PageRead): number {
  return page.continued ? page.found : page.skip + page.found;
}
