import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { FieldRules } from '../interfaces/resource-definition.interface.js';
import { isForbiddenKey, isPlainObject } from './field-path.util.js';

/**
 * Checks a create or update body before it reaches Mongoose: a JSON object whose top-level
 * keys are writable schema fields. `_id`, the version key and timestamps are refused, and so
 * are unknown fields (never silently dropped), operator keys and `__proto__`-like keys at any depth.
 */
export function assertWritableBody(body: unknown, fields: Pick<FieldRules, 'writable' | 'protected'>): Record<string, unknown> {
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The body must be a JSON object');
  for (const key of Object.keys(body)) {
    if (fields.protected.has(key)) throw ModelRoutesException.invalidBody(key, `Field '${key}' cannot be written`);
    if (!fields.writable.has(key)) throw ModelRoutesException.invalidBody(key, `Unknown field '${key}'`);
  }
  assertSafeKeys(body, 'body', 0);
  return body;
}

function assertSafeKeys(value: unknown, path: string, depth: number): void {
  if (depth > 32) throw ModelRoutesException.invalidBody(path, 'The body is nested too deeply');
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertSafeKeys(item, `${path}.${index}`, depth + 1));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const at = depth === 0 ? key : `${path}.${key}`;
      if (isForbiddenKey(key) || key.startsWith('$') || key.includes('.')) {
        throw ModelRoutesException.invalidBody(at, `Key '${key}' is not allowed`);
      }
      assertSafeKeys(item, at, depth + 1);
    }
  }
}
