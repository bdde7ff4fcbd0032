import { channel } from 'node:diagnostics_channel';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { parseExpand } from './expand.parser.js';
import { sanitizeFilter } from './filter.sanitizer.js';
import { isForbiddenKey, isPlainObject } from './field-path.util.js';
import { parseSelect, parseSort } from './search-fields.parser.js';
import { QUERY_OPERATORS, QUERY_STRING_OPERATORS } from './query-operators.js';
import { RELATION_QUANTIFIERS } from './relation-path.util.js';
import type { SearchParams, SearchRules } from './search-params.interface.js';

const BODY_KEYS = new Set(['query', 'limit', 'skip', 'sort', 'select', 'expand', 'after']);
const RESERVED_PARAMETERS = new Set(['limit', 'skip', 'sort', 'select', 'expand', 'after']);

/**
 * The diagnostics channel told of every search parsed (`{ from: 'body' | 'query' }`), before it is
 * checked: a generated route parses its search once per request, which a test counts here. Costs
 * nothing while no one subscribes.
 */
export const SEARCH_PARSED_CHANNEL = 'nestjs-model-routes:search-parsed';
const parsed = channel(SEARCH_PARSED_CHANNEL);

/**
 * Parses the body of `POST /<plural>` and of the reverse reference POST route:
 * `{ query, limit, skip, sort, select, expand, after }`, every key optional.
 *
 * @publicApi
 */
export function parseSearchBody(body: unknown, rules: SearchRules): SearchParams {
  if (parsed.hasSubscribers) parsed.publish({ from: 'body' });
  if (body === undefined || body === null) body = {};
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The request body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (!BODY_KEYS.has(key)) {
      throw ModelRoutesException.invalidQuery(key, `Unknown search parameter '${key}'; use query, limit, skip, sort, select, expand or after`);
    }
  }
  return {
    filter: sanitizeFilter(body.query, rules),
    ...parsePaging(body, rules, false),
  };
}

/**
 * Parses the query string of `GET /<plural>` and of the reverse reference GET route:
 * `?niceName=Acme&employees[gte]=10&sort=-employees,niceName&select=niceName&limit=5&skip=10&expand=owner`
 * (or `&after=<status.next>` instead of `skip`).
 * Every other parameter is a condition on a schema field: `field=value` or `field[op]=value`
 * with `op` one of `QUERY_STRING_OPERATORS`, written without `$`. A condition given twice, in any
 * spelling (`niceName=a&niceName[eq]=b`), is refused. Errors name the same paths as the POST
 * search would (`query.employees.$gte`).
 *
 * @publicApi
 */
export function parseSearchQueryString(query: Record<string, unknown> | undefined, rules: SearchRules): SearchParams {
  if (parsed.hasSubscribers) parsed.publish({ from: 'query' });
  const params = query ?? {};
  // Keyed by client input: no prototype, so `__proto__` or `toString` can only be own keys.
  const filter: Record<string, Record<string, unknown>> = Object.create(null);
  // Fields written `field=value`: one equality, sent as `{ field: value }` as the POST search would be.
  const plain = new Set<string>();
  for (const [key, value] of Object.entries(params)) {
    if (RESERVED_PARAMETERS.has(key)) continue;
    const match = /^([^[\]]+)(?:\[([a-zA-Z]+)\])?$/.exec(key);
    if (!match) throw ModelRoutesException.invalidQuery(`query.${key}`, `Malformed parameter '${key}'`);
    const [, field, operator] = match;
    if (isForbiddenKey(field)) throw ModelRoutesException.invalidQuery(`query.${field}`, `Key '${field}' is not allowed`);
    if (!operator && !isPlainObject(value)) plain.add(field);
    for (const [op, operand] of conditionsOf(key, operator, value)) {
      const name = `$${op}`;
      const at = `query.${field}.${name}`;
      if (RELATION_QUANTIFIERS.has(name)) {
        throw ModelRoutesException.invalidQuery(
          at,
          `${field}[${op}] is not available in a query string: write ${field}.<field>=... (some referenced document matches), or send { "query": { ` +
            `"${field}": { "${name}": { ... } } } } to the POST search`,
        );
      }
      if (!QUERY_STRING_OPERATORS.has(name)) {
        const hint = /^[a-z]\w*$/i.test(op) && !(name in QUERY_OPERATORS) ? `; for a sub-field, write ${field}.${op}=...` : '';
        throw ModelRoutesException.invalidQuery(at, `Operator ${op} is not allowed in a query string${hint}`);
      }
      const conditions = (filter[field] ??= Object.create(null));
      if (name in conditions) throw ModelRoutesException.invalidQuery(`query.${field}`, `Parameter '${field}' is given more than once`);
      conditions[name] = queryStringOperand(name, operand, field, at);
    }
  }
  // Back to ordinary objects for Mongoose, now that every key is known to be safe.
  const conditions = Object.fromEntries(
    Object.entries(filter).map(([field, operators]) => [field, plain.has(field) && Object.keys(operators).length === 1 ? operators.$eq : { ...operators }]),
  );
  return { filter: sanitizeFilter(conditions, rules, 'query'), ...parsePaging(params, rules, true) };
}

/**
 * The conditions of one parameter: `field[op]=v` → `[[op, v]]`; `field=v` → `[['eq', v]]`; and
 * what a parser that builds objects from brackets makes of them (`{ employees: { gte: '10' } }`).
 */
function conditionsOf(key: string, operator: string | undefined, value: unknown): Array<readonly [string, unknown]> {
  if (operator) return [[operator, value]];
  if (isPlainObject(value)) return Object.entries(value);
  if (Array.isArray(value) && value.some((item) => typeof item !== 'string')) {
    // `a=1&a[eq]=2` through a bracket parser: the same field twice, in two spellings.
    throw ModelRoutesException.invalidQuery(`query.${key}`, `Parameter '${key}' is given more than once`);
  }
  return [['eq', value]];
}

function queryStringOperand(operator: string, value: unknown, field: string, path: string): unknown {
  if (Array.isArray(value) && operator !== '$in' && operator !== '$nin' && operator !== '$all') {
    throw ModelRoutesException.invalidQuery(`query.${field}`, `Parameter '${field}' is given more than once`);
  }
  if (typeof value !== 'string' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
    throw ModelRoutesException.invalidQuery(path, `Parameter '${field}' must be a plain value`);
  }
  switch (operator) {
    case '$in':
    case '$nin':
    case '$all':
      return (Array.isArray(value) ? value : value.split(',')).map(String);
    case '$exists':
      if (value !== 'true' && value !== 'false') throw ModelRoutesException.invalidQuery(path, `${field}[exists] takes true or false`);
      return value === 'true';
    case '$size':
      if (!/^\d+$/.test(value as string)) throw ModelRoutesException.invalidQuery(path, `${field}[size] takes a non-negative integer`);
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
  // One way of paging per request: the cursor names where the page starts.
  // `null` is no cursor: the first page.
  const after = source.after ?? undefined;
  if (after !== undefined && skip > 0)
    throw ModelRoutesException.invalidQuery('after', 'after and skip cannot be used together: after continues where the previous page ended');
  const expand = source.expand === undefined ? undefined : parseExpand(source.expand, rules);
  const select = source.select === undefined ? undefined : parseSelect(source.select, rules);
  // An expanded field is asked for by name: it comes back whatever `select` says.
  for (const { field } of expand ?? []) if (select && !select.includes(field)) select.push(field);
  return {
    limit: Math.min(requested, maxLimit),
    skip,
    ...(source.sort === undefined ? {} : { sort: parseSort(source.sort, rules) }),
    ...(select && { select }),
    ...(expand && { expand }),
    ...(after !== undefined && { after }),
  };
}

function toInteger(value: unknown, name: string, fromString: boolean): number {
  if (fromString && Array.isArray(value)) throw ModelRoutesException.invalidQuery(name, `Parameter '${name}' is given more than once`);
  if (fromString && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (!fromString && Number.isSafeInteger(value)) return value as number;
  throw ModelRoutesException.invalidQuery(name, `${name} must be an integer`);
}

/** An export's query string without its `format`, which is not a condition (the format the export writes). */
export function exportQuery(query: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (query?.format === undefined) return query;
  const { format: _format, ...search } = query;
  return search;
}
