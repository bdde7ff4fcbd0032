import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isForbiddenKey, isPlainObject, isQueryablePath } from './field-path.util.js';
import type { SearchRules } from './search-params.interface.js';

/** Operators a client may use. Everything else (`$where`, `$expr`, `$function`, ...) is refused. */
export const ALLOWED_OPERATORS = new Set([
  '$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$exists',
  '$regex', '$options', '$and', '$or', '$nor', '$not', '$elemMatch', '$all', '$size',
]);

const LOGICAL = new Set(['$and', '$or', '$nor']);

interface Walk {
  rules: SearchRules;
  nodes: number;
}

/**
 * Checks a client's MongoDB filter: allowlisted operators only, schema paths only, bounded
 * `$regex`, bounded depth and size. Returns the filter unchanged when it is safe; otherwise
 * throws a 400 naming the offending path (`query.$or.0.$where`). Values are cast later, by
 * Mongoose, against the schema.
 */
export function sanitizeFilter(filter: unknown, rules: SearchRules, path = 'query'): Record<string, unknown> {
  if (filter === undefined || filter === null) return {};
  checkFilter(filter, path, 1, { rules, nodes: 0 });
  if (rules.fields.enums?.size) checkEnumValues(filter as Record<string, unknown>, path, rules.fields.enums);
  return filter as Record<string, unknown>;
}

/**
 * Mongoose does not check `enum` in filters, so `{ status: 'bogus' }` would quietly match
 * nothing; a value outside the enum is refused like any value that cannot be cast.
 */
function checkEnumValues(filter: Record<string, unknown>, path: string, enums: ReadonlyMap<string, ReadonlySet<string>>): void {
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL.has(key)) {
      (value as Record<string, unknown>[]).forEach((item, index) => checkEnumValues(item, `${path}.${key}.${index}`, enums));
      continue;
    }
    const allowed = enums.get(key);
    if (!allowed) continue;
    const candidates = isPlainObject(value)
      ? [value.$eq, value.$ne, ...(Array.isArray(value.$in) ? value.$in : []), ...(Array.isArray(value.$nin) ? value.$nin : [])]
      : [value];
    for (const candidate of candidates) {
      if (candidate === undefined || candidate === null || allowed.has(String(candidate))) continue;
      const message = `'${String(candidate)}' is not one of the values of '${key}': ${[...allowed].join(', ')}`;
      throw new ModelRoutesException('MR_INVALID_VALUE', message, [{ path: `${path}.${key}`, message }]);
    }
  }
}

function checkFilter(filter: unknown, path: string, depth: number, walk: Walk, relative = false): void {
  if (!isPlainObject(filter)) throw ModelRoutesException.invalidQuery(path, `${path} must be an object`);
  enter(path, depth, walk, Object.keys(filter).length);
  for (const [key, value] of Object.entries(filter)) {
    const at = `${path}.${key}`;
    if (key.startsWith('$')) {
      if (!LOGICAL.has(key)) throw operatorError(at, key);
      if (!Array.isArray(value) || value.length === 0) {
        throw ModelRoutesException.invalidQuery(at, `${key} takes a non-empty array of conditions`);
      }
      enter(at, depth + 1, walk, value.length);
      value.forEach((item, index) => checkFilter(item, `${at}.${index}`, depth + 2, walk, relative));
      continue;
    }
    // Inside $elemMatch, paths are relative to the array element and the schema is not consulted.
    if (isForbiddenKey(key) || (!relative && !isQueryablePath(key, walk.rules))) {
      throw ModelRoutesException.invalidQuery(at, `Unknown field '${key}'`);
    }
    checkCondition(value, at, depth + 1, walk);
  }
}

function checkCondition(condition: unknown, path: string, depth: number, walk: Walk): void {
  if (!isPlainObject(condition) || !Object.keys(condition).some((key) => key.startsWith('$'))) {
    checkLiteral(condition, path, depth, walk);
    return;
  }
  const keys = Object.keys(condition);
  enter(path, depth, walk, keys.length);
  if (keys.some((key) => !key.startsWith('$'))) {
    throw ModelRoutesException.invalidQuery(path, `${path} mixes operators and field names`);
  }
  for (const [operator, operand] of Object.entries(condition)) {
    checkOperator(operator, operand, condition, `${path}.${operator}`, depth + 1, walk);
  }
}

function checkOperator(
  operator: string,
  operand: unknown,
  condition: Record<string, unknown>,
  path: string,
  depth: number,
  walk: Walk,
): void {
  const { maxRegexLength, allowRegex } = walk.rules.search;
  switch (operator) {
    case '$regex':
      if (!allowRegex) throw ModelRoutesException.invalidQuery(path, '$regex is disabled for this resource');
      if (typeof operand !== 'string') throw ModelRoutesException.invalidQuery(path, '$regex takes a string');
      if (operand.length > maxRegexLength) {
        throw ModelRoutesException.invalidQuery(path, `$regex is longer than ${maxRegexLength} characters`);
      }
      return;
    case '$options':
      if (!('$regex' in condition)) throw ModelRoutesException.invalidQuery(path, '$options goes with $regex');
      if (typeof operand !== 'string' || !/^[imsx]*$/.test(operand)) {
        throw ModelRoutesException.invalidQuery(path, '$options may only contain the flags i, m, s and x');
      }
      return;
    case '$exists':
      if (typeof operand !== 'boolean') throw ModelRoutesException.invalidQuery(path, '$exists takes true or false');
      return;
    case '$size':
      if (!Number.isInteger(operand) || (operand as number) < 0) {
        throw ModelRoutesException.invalidQuery(path, '$size takes a non-negative integer');
      }
      return;
    case '$in':
    case '$nin':
    case '$all':
      if (!Array.isArray(operand)) throw ModelRoutesException.invalidQuery(path, `${operator} takes an array`);
      enter(path, depth, walk, operand.length);
      operand.forEach((item, index) =>
        operator === '$all' && isPlainObject(item) && '$elemMatch' in item
          ? checkCondition(item, `${path}.${index}`, depth + 1, walk)
          : checkLiteral(item, `${path}.${index}`, depth + 1, walk),
      );
      return;
    case '$not':
      if (!isPlainObject(operand)) throw ModelRoutesException.invalidQuery(path, '$not takes an operator object');
      checkCondition(operand, path, depth, walk);
      return;
    case '$elemMatch':
      if (!isPlainObject(operand)) throw ModelRoutesException.invalidQuery(path, '$elemMatch takes an object');
      if (Object.keys(operand).every((key) => key.startsWith('$') && !LOGICAL.has(key))) {
        checkCondition(operand, path, depth, walk);
      } else {
        checkFilter(operand, path, depth, walk, true);
      }
      return;
    case '$eq':
    case '$ne':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      checkLiteral(operand, path, depth, walk);
      return;
    default:
      throw operatorError(path, operator);
  }
}

/** A value compared as is: scalars, or arrays and objects without operators inside. */
function checkLiteral(value: unknown, path: string, depth: number, walk: Walk): void {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return;
  if (Array.isArray(value)) {
    enter(path, depth, walk, value.length);
    value.forEach((item, index) => checkLiteral(item, `${path}.${index}`, depth + 1, walk));
    return;
  }
  if (isPlainObject(value)) {
    enter(path, depth, walk, Object.keys(value).length);
    for (const [key, item] of Object.entries(value)) {
      if (key.startsWith('$')) throw operatorError(`${path}.${key}`, key);
      if (isForbiddenKey(key)) throw ModelRoutesException.invalidQuery(`${path}.${key}`, `Key '${key}' is not allowed`);
      checkLiteral(item, `${path}.${key}`, depth + 1, walk);
    }
    return;
  }
  throw ModelRoutesException.invalidQuery(path, `${path} has a value of an unsupported type`);
}

function enter(path: string, depth: number, walk: Walk, size: number): void {
  const { maxQueryDepth, maxQueryNodes } = walk.rules.search;
  if (depth > maxQueryDepth) {
    throw ModelRoutesException.invalidQuery(path, `The query is nested deeper than ${maxQueryDepth} levels`);
  }
  walk.nodes += size;
  if (walk.nodes > maxQueryNodes) {
    throw ModelRoutesException.invalidQuery(path, `The query has more than ${maxQueryNodes} keys and items`);
  }
}

function operatorError(path: string, operator: string): ModelRoutesException {
  return ModelRoutesException.invalidQuery(path, `Operator ${operator} is not allowed`);
}
