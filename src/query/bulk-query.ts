import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { parseSearchQueryString } from './search-params.parser.js';
import type { SearchParams, SearchRules } from './search-params.interface.js';

/** The search parameters a bulk change has no use for: it changes every match, in `_id` order, and answers no documents. */
const PAGING_PARAMETERS = ['limit', 'skip', 'sort', 'select', 'expand', 'after'];

/**
 * `?dryRun=true|false` of a bulk change (`PATCH /<plural>`, `DELETE /<plural>`), default false;
 * any other value is a 400 `MR_INVALID_QUERY`.
 */
export function bulkDryRun(query: Record<string, unknown> | undefined): boolean {
  const value = query?.dryRun;
  if (value === undefined) return false;
  if (value !== 'true' && value !== 'false') throw ModelRoutesException.invalidQuery('dryRun', 'dryRun must be true or false');
  return value === 'true';
}

/** A bulk change's query string without its `dryRun`, which is not a condition. */
export function bulkConditions(query: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (query?.dryRun === undefined) return query;
  const { dryRun: _dryRun, ...conditions } = query;
  return conditions;
}

/**
 * The conditions of a bulk change, from its query string (without `dryRun`): parsed as the
 * `GET /<plural>` search parses them, under the same rules (hidden fields, operators, casts). At
 * least one condition is required, so that a request that lost its query string (or a client's
 * slip) never changes a whole collection; `limit`, `skip`, `sort`, `select`, `expand` and `after`
 * are refused rather than ignored: a bulk change is of every match or of none.
 */
export function parseBulkQueryString(conditions: Record<string, unknown> | undefined, rules: SearchRules): SearchParams {
  for (const name of PAGING_PARAMETERS) {
    if (conditions?.[name] !== undefined)
      throw ModelRoutesException.invalidQuery(name, `A bulk change takes conditions and dryRun, not ${name}: it changes every match, or none`);
  }
  const params = parseSearchQueryString(conditions, rules);
  if (Object.keys(params.filter).length === 0) {
    throw ModelRoutesException.invalidQuery(
      'query',
      'A bulk change needs at least one condition (field=value): it never changes a whole collection by default',
    );
  }
  return params;
}
