import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { FieldRules } from '../interfaces/resource-definition.interface.js';
import { isForbiddenKey, isPlainObject } from './field-path.util.js';

/** Deepest nesting of objects and arrays accepted in a body. */
export const MAX_BODY_DEPTH = 32;

type WriteRules = Pick<FieldRules, 'writable' | 'protected' | 'openPrefixes'>;

/**
 * Checks a create or update body before it reaches Mongoose: a JSON object whose keys, at every
 * depth, are schema fields a client may write. `_id`, the version key, timestamps and `readonly`
 * fields are refused, and so are unknown fields (never silently dropped), operator keys (`$set`),
 * dotted keys and `__proto__`-like keys. Below a Mixed or Map field any key is data, but operator
 * and `__proto__`-like keys are still refused. Values are left to the schema's casts and validators.
 */
export function assertWritableBody(body: unknown, fields: WriteRules): Record<string, unknown> {
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The request body must be a JSON object');
  checkObject(body, '', fields, 0);
  return body;
}

function checkObject(value: Record<string, unknown>, parent: string, fields: WriteRules, depth: number): void {
  if (depth > MAX_BODY_DEPTH) throw ModelRoutesException.invalidBody(parent, 'The body is nested too deeply');
  for (const [key, item] of Object.entries(value)) {
    const path = parent ? `${parent}.${key}` : key;
    if (isForbiddenKey(key) || key.startsWith('$') || key.includes('.') || key === '') {
      throw ModelRoutesException.invalidBody(path, `Key '${key}' is not allowed`);
    }
    if (fields.protected.has(path)) throw ModelRoutesException.invalidBody(path, `Field '${path}' cannot be written`);
    if (!fields.writable.has(path)) throw ModelRoutesException.invalidBody(path, `Unknown field '${path}'`);
    checkValue(item, path, fields, depth + 1);
  }
}

function checkValue(value: unknown, path: string, fields: WriteRules, depth: number): void {
  if (fields.openPrefixes.includes(path)) {
    checkFreeForm(value, path, depth);
  } else if (Array.isArray(value)) {
    // Elements of an array of sub-documents are checked against the sub-document's fields.
    value.forEach((item) => checkValue(item, path, fields, depth + 1));
  } else if (isPlainObject(value)) {
    checkObject(value, path, fields, depth);
  }
}

/** Mixed and Map fields hold any data, minus keys that would act as operators or reach prototypes. */
function checkFreeForm(value: unknown, path: string, depth: number): void {
  if (depth > MAX_BODY_DEPTH) throw ModelRoutesException.invalidBody(path, 'The body is nested too deeply');
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkFreeForm(item, `${path}.${index}`, depth + 1));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (isForbiddenKey(key) || key.startsWith('$') || key.includes('.')) {
        throw ModelRoutesException.invalidBody(`${path}.${key}`, `Key '${key}' is not allowed`);
      }
      checkFreeForm(item, `${path}.${key}`, depth + 1);
    }
  }
}
