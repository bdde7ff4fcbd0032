import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isForbiddenKey, isPlainObject, isQueryablePath, normalizePath, holdsHiddenPath } from './field-path.util.js';
import { QUERY_OPERATORS, type OperandKind } from './query-operators.js';
import { checkRegexCost } from './regex-complexity.js';
import { isPositional, isQuantified, RELATION_QUANTIFIERS, relationCrossingOf } from './relation-path.util.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import type { RelationRules } from './search-params.interface.js';
import type { SearchRules } from './search-params.interface.js';
import { hasNulCharacter, NUL_CHARACTER_MESSAGE } from '../utils/text.util.js';

interface Walk {
  /** The rules of the documents the conditions at hand are on (a referenced model's, across a reference). */
  rules: SearchRules;
  /** How errors name a field of those documents: `owner.` across `owner.niceName`, else empty. */
  label: string;
  /** The depth and size bounds of the whole query: the searched resource's. */
  bounds: Pick<ResolvedSearchOptions, 'maxQueryDepth' | 'maxQueryNodes'>;
  count: { nodes: number };
}

/**
 * Checks a client's MongoDB filter: allowlisted operators only (`QUERY_OPERATORS`), schema paths
 * only, at every depth (inside `$elemMatch` too, relative to the array), bounded and affordable
 * `$regex`, bounded depth and size, `enum` values under every operator that carries a value, and
 * no comparison of a whole field that holds a hidden one (`meta` when `meta.token` is hidden: an
 * oracle on the hidden value). Returns the filter unchanged when it is safe; otherwise throws a 400
 * naming the offending path (`query.$or.0.$where`). Values are cast later, by Mongoose.
 *
 * Where `rules.relation` lets a search cross a reference declared `filter: true`, a condition on
 * the referenced documents' fields (`owner.niceName`, `owner.company.name`; `members.niceName`:
 * some element) and `{ members: { $some | $none | $every: <filter> } }` are checked under the
 * referenced model's rules (`relation.target`: its hidden fields and view, regex settings, enums),
 * as its own search would check them. They are not MongoDB: `resolveRelationFilters` rewrites them.
 *
 * @publicApi
 */
export function sanitizeFilter(filter: unknown, rules: SearchRules, path = 'query'): Record<string, unknown> {
  if (filter === undefined || filter === null) return {};
  checkFilter(filter, path, 1, { rules, label: '', bounds: rules.search, count: { nodes: 0 } }, '');
  return filter as Record<string, unknown>;
}

/** A filter object: logical operators and conditions on fields. `base` is the array an `$elemMatch` is relative to. */
function checkFilter(filter: unknown, path: string, depth: number, walk: Walk, base: string): void {
  if (!isPlainObject(filter)) throw ModelRoutesException.invalidQuery(path, `${path} must be an object`);
  enter(path, depth, walk, Object.keys(filter).length);
  for (const [key, value] of Object.entries(filter)) {
    const at = `${path}.${key}`;
    if (key.startsWith('$')) {
      if (QUERY_OPERATORS[key as keyof typeof QUERY_OPERATORS] !== 'filters') throw operatorError(at, key);
      if (!Array.isArray(value) || value.length === 0) {
        throw ModelRoutesException.invalidQuery(at, `${key} takes a non-empty array of conditions`);
      }
      enter(at, depth + 1, walk, value.length);
      value.forEach((item, index) => checkFilter(item, `${at}.${index}`, depth + 2, walk, base));
      continue;
    }
    const field = base ? `${base}.${key}` : key;
    const crossing = isForbiddenKey(key) ? undefined : relationCrossingOf(field, walk.rules);
    if (crossing?.relation.filter) {
      if (base) throw insideElemMatch(at, crossing.relation);
      if (isPositional(crossing)) throw ModelRoutesException.invalidQuery(at, `Unknown field '${walk.label}${field}'`);
      // `owner.niceName: <condition>` is `niceName: <condition>` on the owner's documents.
      checkFilter(
        { [crossing.rest]: value },
        `${path}.${crossing.relation.field}`,
        depth,
        across(crossing.relation, walk, `${walk.label}${crossing.relation.field}.`),
        '',
      );
      continue;
    }
    if (isForbiddenKey(key) || !isQueryablePath(field, walk.rules)) {
      throw ModelRoutesException.invalidQuery(at, `Unknown field '${walk.label}${field}'`);
    }
    const relation = !base && isQuantified(value) ? walk.rules.relation?.(field) : undefined;
    if (relation?.filter) {
      checkQuantified(value as Record<string, unknown>, at, depth + 1, relation, walk);
      continue;
    }
    checkCondition(value, at, field, depth + 1, walk);
  }
}

/** The walk of a filter on the documents `relation` names: their rules, the same bounds and count. */
function across(relation: RelationRules, walk: Walk, label: string): Walk {
  return { rules: relation.target, label, bounds: walk.bounds, count: walk.count };
}

/** `{ members: { $some: {...}, $none: {...} } }`: each operand a filter on the referenced documents. */
function checkQuantified(condition: Record<string, unknown>, path: string, depth: number, relation: RelationRules, walk: Walk): void {
  const keys = Object.keys(condition);
  enter(path, depth, walk, keys.length);
  const other = keys.find((key) => !RELATION_QUANTIFIERS.has(key));
  if (other !== undefined) {
    throw ModelRoutesException.invalidQuery(
      `${path}.${other}`,
      `$some, $none and $every cannot be mixed with other conditions on '${walk.label}${relation.field}'; put each in its own condition under $and`,
    );
  }
  for (const [quantifier, filter] of Object.entries(condition)) {
    const at = `${path}.${quantifier}`;
    if (!isPlainObject(filter))
      throw ModelRoutesException.invalidQuery(at, `${quantifier} takes a filter on the documents '${walk.label}${relation.field}' names`);
    checkFilter(filter, at, depth + 1, across(relation, walk, ''), '');
  }
}

function insideElemMatch(path: string, relation: RelationRules): ModelRoutesException {
  return ModelRoutesException.invalidQuery(
    path,
    `Conditions on the documents '${relation.field}' names cannot go inside $elemMatch; write { "${relation.field}": { "$some": { ... } } } instead`,
  );
}

/** What a field is compared with: a literal value, or an object of operators. */
function checkCondition(condition: unknown, path: string, field: string, depth: number, walk: Walk): void {
  if (!isPlainObject(condition) || !Object.keys(condition).some((key) => key.startsWith('$'))) {
    checkComparable(field, path, walk);
    checkLiteral(condition, path, depth, walk);
    checkEnum(field, condition, path, walk);
    return;
  }
  const keys = Object.keys(condition);
  enter(path, depth, walk, keys.length);
  if (keys.some((key) => !key.startsWith('$'))) {
    throw ModelRoutesException.invalidQuery(path, `${path} mixes operators and field names`);
  }
  for (const [operator, operand] of Object.entries(condition)) {
    checkOperator(operator, operand, condition, { path: `${path}.${operator}`, field, depth: depth + 1, walk });
  }
}

interface Place {
  path: string;
  field: string;
  depth: number;
  walk: Walk;
}

function checkOperator(operator: string, operand: unknown, condition: Record<string, unknown>, place: Place): void {
  const { path, field, depth, walk } = place;
  const kind: OperandKind | undefined = QUERY_OPERATORS[operator as keyof typeof QUERY_OPERATORS];
  switch (kind) {
    case 'value':
      checkComparable(field, path, walk);
      checkLiteral(operand, path, depth, walk);
      checkEnum(field, operand, path, walk);
      return;
    case 'values':
      if (!Array.isArray(operand)) throw ModelRoutesException.invalidQuery(path, `${operator} takes an array`);
      enter(path, depth, walk, operand.length);
      operand.forEach((item, index) => {
        const at = `${path}.${index}`;
        if (operator === '$all' && isPlainObject(item) && '$elemMatch' in item) {
          checkCondition(item, at, field, depth + 1, walk);
          return;
        }
        checkComparable(field, at, walk);
        checkLiteral(item, at, depth + 1, walk);
        checkEnum(field, item, at, walk);
      });
      return;
    case 'boolean':
      if (typeof operand !== 'boolean') throw ModelRoutesException.invalidQuery(path, `${operator} takes true or false`);
      return;
    case 'count':
      if (!Number.isInteger(operand) || (operand as number) < 0) {
        throw ModelRoutesException.invalidQuery(path, `${operator} takes a non-negative integer`);
      }
      return;
    case 'regex':
      checkComparable(field, path, walk);
      checkRegex(operand, typeof condition.$options === 'string' ? condition.$options : '', path, walk);
      return;
    case 'regexOptions':
      if (!('$regex' in condition)) throw ModelRoutesException.invalidQuery(path, '$options goes with $regex');
      if (typeof operand !== 'string' || !/^[imsx]*$/.test(operand)) {
        throw ModelRoutesException.invalidQuery(path, '$options may only contain the flags i, m, s and x');
      }
      return;
    case 'condition':
      if (!isPlainObject(operand)) throw ModelRoutesException.invalidQuery(path, `${operator} takes an operator object`);
      checkCondition(operand, path, field, depth, walk);
      return;
    case 'elements':
      if (!isPlainObject(operand)) throw ModelRoutesException.invalidQuery(path, `${operator} takes an object`);
      if (Object.keys(operand).every((key) => key.startsWith('$') && QUERY_OPERATORS[key as keyof typeof QUERY_OPERATORS] !== 'filters')) {
        // `{ tags: { $elemMatch: { $gte: 'a' } } }`: conditions on each element, as on the field.
        checkCondition(operand, path, field, depth, walk);
      } else {
        // `{ items: { $elemMatch: { qty: { $gt: 1 } } } }`: field names relative to the elements.
        checkFilter(operand, path, depth, walk, field);
      }
      return;
    default:
      throw operatorError(path, operator);
  }
}

function checkRegex(pattern: unknown, flags: string, path: string, walk: Walk): void {
  const { maxRegexLength, allowRegex } = walk.rules.search;
  if (!allowRegex) throw ModelRoutesException.invalidQuery(path, '$regex is disabled for this resource');
  if (typeof pattern !== 'string') throw ModelRoutesException.invalidQuery(path, '$regex takes a string');
  if (hasNulCharacter(pattern)) throw nulError(path);
  if (pattern.length > maxRegexLength) {
    throw ModelRoutesException.invalidQuery(path, `$regex is longer than ${maxRegexLength} characters`);
  }
  const refusal = checkRegexCost(pattern, flags);
  if (refusal?.kind === 'invalid') {
    // As the database would answer it: a value that is not what its operator takes.
    const message = `'${pattern.length > 40 ? `${pattern.slice(0, 37)}...` : pattern}' is not a valid regular expression: ${refusal.reason}`;
    throw new ModelRoutesException('MR_INVALID_VALUE', message, [{ path, message }]);
  }
  if (refusal) throw ModelRoutesException.invalidQuery(path, `$regex is too costly to run: ${refusal.reason}`);
}

/**
 * A field that holds a hidden field (`meta` for `meta.token`, `items` for `items.pin`) cannot be
 * compared as a whole: `{ meta: { public: 'x', token: '<guess>' } }` would match only with the
 * right token. Its visible sub-fields can be, one by one.
 */
function checkComparable(field: string, path: string, walk: Walk): void {
  if (holdsHiddenPath(field, walk.rules.fields.hidden)) {
    throw ModelRoutesException.invalidQuery(path, `Field '${field}' cannot be compared as a whole; compare its fields one by one`);
  }
}

/**
 * Mongoose does not check `enum` in filters, so `{ status: 'bogus' }` would quietly match
 * nothing; a value outside the enum is refused like any value that cannot be cast.
 */
function checkEnum(field: string, value: unknown, path: string, walk: Walk): void {
  const allowed = walk.rules.fields.enums?.get(normalizePath(field));
  if (!allowed || value === undefined || value === null || typeof value === 'object') return;
  if (allowed.has(String(value))) return;
  const message = `'${String(value)}' is not one of the values of '${field}': ${[...allowed].join(', ')}`;
  throw new ModelRoutesException('MR_INVALID_VALUE', message, [{ path, message }]);
}

/** A value compared as is: scalars, or arrays and objects without operators inside. */
function checkLiteral(value: unknown, path: string, depth: number, walk: Walk): void {
  if (typeof value === 'string' && hasNulCharacter(value)) throw nulError(path);
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
      if (hasNulCharacter(key)) throw ModelRoutesException.invalidQuery(`${path}.${key}`, `Key ${JSON.stringify(key)} ${NUL_CHARACTER_MESSAGE}`);
      checkLiteral(item, `${path}.${key}`, depth + 1, walk);
    }
    return;
  }
  throw ModelRoutesException.invalidQuery(path, `${path} has a value of an unsupported type`);
}

function enter(path: string, depth: number, walk: Walk, size: number): void {
  const { maxQueryDepth, maxQueryNodes } = walk.bounds;
  if (depth > maxQueryDepth) {
    throw ModelRoutesException.invalidQuery(path, `The query is nested deeper than ${maxQueryDepth} levels`);
  }
  walk.count.nodes += size;
  if (walk.count.nodes > maxQueryNodes) {
    throw ModelRoutesException.invalidQuery(path, `The query has more than ${maxQueryNodes} keys and items`);
  }
}

/** A search value holding U+0000: no engine can compare it alike (see NUL_CHARACTER_MESSAGE). */
function nulError(path: string): ModelRoutesException {
  const message = `The value ${NUL_CHARACTER_MESSAGE}`;
  return new ModelRoutesException('MR_INVALID_VALUE', message, [{ path, message }]);
}

function operatorError(path: string, operator: string): ModelRoutesException {
  return ModelRoutesException.invalidQuery(path, `Operator ${operator} is not allowed`);
}
