import { ModelRoutesException } from '../errors/model-routes.exception.js';

/** The most versions one page of a history answers. */
export const HISTORY_MAX_LIMIT = 100;

/**
 * The page of a document's history a query string asks for: `limit` (1 to 100, default 20) and
 * `skip` (default 0), integers; anything else is a 400 `MR_INVALID_QUERY`, as a search's unknown
 * parameter is.
 */
export function historyPage(query: Record<string, unknown> | undefined): { limit: number; skip: number } {
  const given = only(query, ['limit', 'skip']);
  return { limit: integer(given.limit, 'limit', 1, HISTORY_MAX_LIMIT) ?? 20, skip: integer(given.skip, 'skip', 0, Number.MAX_SAFE_INTEGER) ?? 0 };
}

/** The `version` a restore of a history's version names (required, a non-negative integer). */
export function historyVersion(query: Record<string, unknown> | undefined): number {
  const version = integer(only(query, ['version']).version, 'version', 0, Number.MAX_SAFE_INTEGER);
  if (version === undefined) throw ModelRoutesException.invalidQuery('version', 'version is required: the version to restore, from the history');
  return version;
}

function only(query: Record<string, unknown> | undefined, names: readonly string[]): Record<string, unknown> {
  const given = query ?? {};
  for (const key of Object.keys(given)) {
    if (!names.includes(key)) throw ModelRoutesException.invalidQuery(key, `Unknown parameter '${key}': this route takes ${names.join(' and ')}`);
  }
  return given;
}

function integer(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw ModelRoutesException.invalidQuery(name, `${name} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`);
  }
  return number;
}
