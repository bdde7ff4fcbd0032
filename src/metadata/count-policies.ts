/**
 * How a search counts the documents its query matches (`status.match_count`), one row per policy:
 * `exact` counts them all (a count query beside the page); `estimated` takes the number from a page
 * that shows where the matches end, else reads the collection's metadata for an unfiltered search and
 * counts at most `search.estimateLimit` matches of a filtered one; `none` counts nothing and leaves
 * `match_count` out.
 *
 * @publicApi
 */
export const COUNT_POLICIES = ['exact', 'estimated', 'none'] as const;

/**
 * One of `COUNT_POLICIES`: what a resource's `search.count` and a request's `Prefer: count=` choose,
 * and what the envelope's `status.counted` says `match_count` is.
 *
 * @publicApi
 */
export type CountPolicy = (typeof COUNT_POLICIES)[number];

/** Whether `value` is one of `COUNT_POLICIES`. */
export function isCountPolicy(value: unknown): value is CountPolicy {
  return typeof value === 'string' && (COUNT_POLICIES as readonly string[]).includes(value);
}
