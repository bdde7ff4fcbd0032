import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isPlainObject } from './field-path.util.js';

/** Operators FerretDB v1 applies correctly to each element inside `$elemMatch` (measured on v1.24.2, both backends). */
const FERRETDB_ELEMENT_OPERATORS = new Set(['$eq', '$gt', '$gte', '$lt', '$lte', '$in', '$nin', '$all', '$regex', '$options', '$exists']);
const LOGICAL = new Set(['$and', '$or', '$nor']);

/**
 * Refuses, with a 400 `MR_UNSUPPORTED_QUERY` naming the place (`query.lines.$elemMatch`), the
 * `$elemMatch` forms FerretDB v1 lacks or gets wrong, so that a search there never answers a
 * silently empty (or wrong) result. Measured on v1.24.2 (PostgreSQL and SQLite backends):
 *
 * - conditions on the fields of the elements (`{ lines: { $elemMatch: { qty: { $gte: 2 } } } }`)
 *   match no document with one field, and fail with two; `$and`/`$or`/`$nor` inside are not implemented;
 * - `$ne` and `$not` inside are not implemented; `$size` inside matches wrongly; an object or an
 *   array compared with an element (`{ $eq: { text: 'a' } }`) matches nothing;
 * - `$all` of `$elemMatch` conditions matches nothing.
 *
 * The conditions on the elements of an array of scalars (`{ tags: { $elemMatch: { $gte: 'a', $lt: 'n' } } }`)
 * work and pass. MongoDB runs every form: the repository calls this only on FerretDB.
 */
export function checkFerretDbFilter(filter: unknown, path = 'query'): void {
  if (!isPlainObject(filter)) return;
  for (const [key, value] of Object.entries(filter)) {
    const at = `${path}.${key}`;
    if (LOGICAL.has(key) && Array.isArray(value)) value.forEach((item, index) => checkFerretDbFilter(item, `${at}.${index}`));
    else if (!key.startsWith('$')) checkCondition(value, at);
  }
}

function checkCondition(condition: unknown, path: string): void {
  if (!isPlainObject(condition)) return;
  for (const [operator, operand] of Object.entries(condition)) {
    const at = `${path}.${operator}`;
    if (operator === '$not') checkCondition(operand, at);
    else if (operator === '$elemMatch') checkElements(operand, at);
    else if (operator === '$all' && Array.isArray(operand)) {
      operand.forEach((item, index) => {
        if (isPlainObject(item) && '$elemMatch' in item)
          throw unsupported(
            `${at}.${index}`,
            '$all with $elemMatch conditions matches nothing on FerretDB v1; send one $elemMatch per field condition, under $and',
          );
      });
    }
  }
}

function checkElements(operand: unknown, path: string): void {
  if (!isPlainObject(operand)) return;
  const keys = Object.keys(operand);
  if (keys.some((key) => !key.startsWith('$') || LOGICAL.has(key))) {
    throw unsupported(
      path,
      'FerretDB v1 does not match conditions on the fields of the elements inside $elemMatch; compare the dotted sub-field instead (`lines.qty`), which ' +
        'any element may satisfy',
    );
  }
  for (const [operator, value] of Object.entries(operand)) {
    if (!FERRETDB_ELEMENT_OPERATORS.has(operator)) throw unsupported(`${path}.${operator}`, `FerretDB v1 does not implement ${operator} inside $elemMatch`);
    const values = Array.isArray(value) && ['$in', '$nin', '$all'].includes(operator) ? value : [value];
    if (values.some((item) => isPlainObject(item) || Array.isArray(item))) {
      throw unsupported(`${path}.${operator}`, 'FerretDB v1 does not compare an element with an object or an array inside $elemMatch');
    }
  }
}

function unsupported(path: string, message: string): ModelRoutesException {
  return new ModelRoutesException('MR_UNSUPPORTED_QUERY', `This database server does not support the query at '${path}': ${message}`, [{ path, message }]);
}
