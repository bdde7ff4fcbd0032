import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { sanitizeFilter, ALLOWED_OPERATORS } from './filter.sanitizer.js';
import { isForbiddenKey, isPlainObject, isQueryablePath } from './field-path.util.js';
import type { SearchParams, SearchRules } from './search-params.interface.js';

const BODY_KEYS = new Set(['query', 'limit', 'skip', 'sort', 'select']);
const RESERVED_PARAMETERS = new Set(['limit', 'skip', 'sort', 'select']);
const SORT_DIRECTIONS = new Map<string, 1 | -1>([
  ['1', 1], ['-1', -1], ['asc', 1], ['desc', -1], ['ascending', 1], ['descending', -1],
]);

/**
 * Parses the body of `POST /<plural>` and of the reverse reference POST route:
 * `{ query, limit, skip, sort, select }`, every key optional.
 */
export function parseSearchBody(body: unknown, rules: SearchRules): SearchParams {
  if (body === undefined || body === null) body = {};
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!BODY_KEYS.has(key)) {
      throw ModelRoutesException.invalidQuery(key, `Unknown search parameter '${key}'; use query, limit, skip, sort or select`);
    }
  }
  return {
    filter: sanitizeFilter(body.query, rules),
    ...parsePaging(body, rules, false),
  };
}

/**
 * Parses the query string of `GET /<plural>` and of the reverse reference GET route:
 * `?niceName=Acme&employees[gte]=10&sort=-employees,niceName&select=niceName&limit=5&skip=10`.
 * Every other parameter is a condition on a schema field: `field=value` or `field[op]=value`
 * with `op` one of the allowlisted operators, written without `$`.
 */
export function parseSearchQueryString(query: Record<string, unknown> | undefined, rules: SearchRules): SearchParams {
  const params = query ?? {};
  // Keyed by client input: no prototype, so `__proto__` or `toString` can only be own keys.
  const filter: Record<string, Record<string, unknown>> = Object.create(null);
  for (const [key, value] of Object.entries(params)) {
    if (RESERVED_PARAMETERS.has(key)) continue;
    const match = /^([^[\]]+)(?:\[([a-zA-Z]+)\])?$/.exec(key);
    if (!match) throw ModelRoutesException.invalidQuery(key, `Malformed parameter '${key}'`);
    const [, field, operator] = match;
    if (isForbiddenKey(field)) throw ModelRoutesException.invalidQuery(`query.${field}`, `Key '${field}' is not allowed`);
    // A parser that builds objects from brackets gives `{ employees: { gte: '10' } }`.
    const conditions = isPlainObject(value) && !operator ? Object.entries(value) : [[operator ?? 'eq', value] as const];
    for (const [op, operand] of conditions) {
      const name = `$${op}`;
      if (!ALLOWED_OPERATORS.has(name) || ['$and', '$or', '$nor', '$not', '$elemMatch'].includes(name)) {
        throw ModelRoutesException.invalidQuery(key, `Operator ${op} is not allowed in a query string`);
      }
      (filter[field] ??= Object.create(null))[name] = queryStringOperand(name, operand, key);
    }
  }
  // Back to ordinary objects for Mongoose, now that every key is known to be safe.
  const checked = sanitizeFilter(filter, rules, 'query');
  const plain = Object.fromEntries(Object.entries(checked).map(([field, conditions]) => [field, { ...(conditions as object) }]));
  return { filter: plain, ...parsePaging(params, rules, true) };
}

function queryStringOperand(operator: string, value: unknown, key: string): unknown {
  if (Array.isArray(value) && operator !== '$in' && operator !== '$nin' && operator !== '$all') {
    throw ModelRoutesException.invalidQuery(key, `Parameter '${key}' is given more than once`);
  }
  if (typeof value !== 'string' && !Array.isArray(value)) {
    throw ModelRoutesException.invalidQuery(key, `Parameter '${key}' must be a plain value`);
  }
  switch (operator) {
    case '$in':
    case '$nin':
    case '$all':
      return (Array.isArray(value) ? value : value.split(',')).map(String);
    case '$exists':
      if (value !== 'true' && value !== 'false') throw ModelRoutesException.invalidQuery(key, `${key} takes true or false`);
      return value === 'true';
    case '$size':
      if (!/^\d+$/.test(value as string)) throw ModelRoutesException.invalidQuery(key, `${key} takes a non-negative integer`);
      return Number(value);
    default:
      return value;
  }
}

function parsePaging(source: Record<string, unknown>, rules: SearchRules, fromString: boolean) {
  const { defaultLimit, maxLimit, maxSkip } = rules.search;
  const requested = source.limit === undefined ? defaultLimit : toInteger(source.limit, 'limit', fromString);
  if (requested < 1) throw ModelRoutesException.invalidQuery('limit', 'limit must be at least 1');
  const skip = source.skip === undefined ? 0 : toInteger(source.skip, 'skip', fromString);
  if (skip < 0) throw ModelRoutesException.invalidQuery('skip', 'skip must be 0 or more');
  if (skip > maxSkip) throw ModelRoutesException.invalidQuery('skip', `skip must be at most ${maxSkip}`);
  return {
    limit: Math.min(requested, maxLimit),
    skip,
    ...(source.sort === undefined ? {} : { sort: parseSort(source.sort, rules) }),
    ...(source.select === undefined ? {} : { select: parseSelect(source.select, rules) }),
  };
}

function toInteger(value: unknown, name: string, fromString: boolean): number {
  if (fromString && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (!fromString && Number.isSafeInteger(value)) return value as number;
  throw ModelRoutesException.invalidQuery(name, `${name} must be an integer`);
}

/** `{ employees: -1, niceName: 1 }`, `"-employees niceName"` or `"-employees,niceName"`. */
function parseSort(value: unknown, rules: SearchRules): Record<string, 1 | -1> {
  const entries: Array<[string, unknown]> =
    typeof value === 'string'
      ? splitList(value).map((item) => (item.startsWith('-') ? [item.slice(1), -1] : [item.replace(/^\+/, ''), 1]))
      : isPlainObject(value)
        ? Object.entries(value)
        : [];
  if (entries.length === 0) throw ModelRoutesException.invalidQuery('sort', 'sort must be an object like {"field": -1} or a string like "-field"');
  const sort: Record<string, 1 | -1> = {};
  for (const [field, direction] of entries) {
    assertQueryable(field, 'sort', rules);
    const parsed = typeof direction === 'number' || typeof direction === 'string' ? SORT_DIRECTIONS.get(String(direction)) : undefined;
    if (parsed === undefined) throw ModelRoutesException.invalidQuery(`sort.${field}`, 'sort direction must be 1, -1, "asc" or "desc"');
    sort[field] = parsed;
  }
  return sort;
}

/** `["niceName", "owner"]`, `"niceName owner"` or `"niceName,owner"`. */
function parseSelect(value: unknown, rules: SearchRules): string[] {
  const fields = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : undefined;
  if (!fields || fields.length === 0 || fields.some((field) => typeof field !== 'string')) {
    throw ModelRoutesException.invalidQuery('select', 'select must be a list of field names');
  }
  for (const field of fields as string[]) assertQueryable(field, 'select', rules);
  return fields as string[];
}

function assertQueryable(field: string, parameter: string, rules: SearchRules): void {
  if (isForbiddenKey(field) || !isQueryablePath(field, rules)) {
    throw ModelRoutesException.invalidQuery(`${parameter}.${field}`, `Unknown field '${field}' in ${parameter}`);
  }
}

function splitList(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}
