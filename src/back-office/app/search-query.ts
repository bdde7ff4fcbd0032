/**
 * A search as the app builds it, and as it goes on the wire: a query string for `GET`, a body for
 * `POST` (whichever route is enabled). A pure module, unit-tested without a browser.
 */

/** A condition on one field: a value (equality) or operators of the allowlist. */
export type Condition = string | number | boolean | { $regex?: string; $options?: string; $gte?: string | number; $lte?: string | number; $in?: string[] };

/** A search as the app builds it; sent as a query string (`GET`) or a body (`POST`), whichever route is enabled. */
export interface SearchSpec {
  filter: Record<string, Condition>;
  /** `-employees`. */
  sort?: string;
  limit?: number;
  skip?: number;
  /** The cursor to continue after: the `status.next` of the page before, with the same filter and sort. */
  after?: string;
  /** The reference fields to answer as the documents they name (`expand=owner,lead`). */
  expand?: string[];
}

/** `{ filter: { employees: { $gte: 10 } }, sort: '-employees' }` → `employees[gte]=10&sort=-employees`. */
export function toQueryString(spec: SearchSpec): URLSearchParams {
  const query = new URLSearchParams();
  for (const [field, condition] of Object.entries(spec.filter)) {
    if (typeof condition !== 'object') {
      query.append(field, String(condition));
      continue;
    }
    for (const [operator, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      query.append(`${field}[${operator.slice(1)}]`, Array.isArray(value) ? value.join(',') : String(value));
    }
  }
  if (spec.sort) query.set('sort', spec.sort);
  if (spec.limit !== undefined) query.set('limit', String(spec.limit));
  if (spec.skip) query.set('skip', String(spec.skip));
  if (spec.after) query.set('after', spec.after);
  if (spec.expand?.length) query.set('expand', spec.expand.join(','));
  return query;
}

/** The same search as the body of a `POST` search route (`{ query, sort, limit, skip, after, expand }`). */
export function toBody(spec: SearchSpec): Record<string, unknown> {
  return {
    query: spec.filter,
    ...(spec.sort && { sort: spec.sort }),
    ...(spec.limit !== undefined && { limit: spec.limit }),
    ...(spec.skip && { skip: spec.skip }),
    ...(spec.after && { after: spec.after }),
    ...(spec.expand?.length && { expand: spec.expand }),
  };
}

/** A fragment typed by a user, matched literally and case-insensitively. */
export function containing(text: string): Condition {
  return { $regex: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
}
