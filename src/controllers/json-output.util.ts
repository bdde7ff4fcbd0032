/** Deeper than any document the routes answer; a cycle in a custom handler's answer stops there. */
const MAX_DEPTH = 64;

/**
 * Replaces, in place, every value inside the plain objects and arrays of a route's answer that
 * JSON would write through its own `toJSON()` (an `ObjectId` becomes its hex string, a `Decimal128`
 * `{ $numberDecimal }`, a `Buffer` its `{ type, data }`) by what that `toJSON()` returns; dates are
 * left as they are. The JSON a client reads is unchanged, and a serializer that walks objects
 * instead of calling `toJSON()` (class-transformer, in a global `ClassSerializerInterceptor`)
 * writes it too, where it would have taken an `ObjectId` apart (`{ "i0": 7013620, ... }`).
 */
export function withJsonValues<T>(answer: T): T {
  replaceJsonValues(answer, 0);
  return answer;
}

function replaceJsonValues(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) value[index] = jsonValue(value[index], depth);
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return;
  const object = value as Record<string, unknown>;
  for (const key in object) object[key] = jsonValue(object[key], depth);
}

function jsonValue(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || value instanceof Date) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (!Array.isArray(value) && typeof toJSON === 'function' && Object.getPrototypeOf(value) !== Object.prototype) return toJSON.call(value);
  replaceJsonValues(value, depth + 1);
  return value;
}
