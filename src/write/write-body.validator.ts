import type { ErrorDetail } from '../errors/error-body.util.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import { isForbiddenKey, isPlainObject, normalizePath } from '../query/field-path.util.js';
import { hasNulCharacter, NUL_CHARACTER_MESSAGE, toWellFormed } from '../utils/text.util.js';

/** Deepest nesting of objects and arrays accepted in a body. */
export const MAX_BODY_DEPTH = 32;

/**
 * Longest value accepted for the field that identifies a resource in URLs (a slug): whatever can
 * be created must stay addressable, and a path or `Location` header of tens of kilobytes cannot be.
 */
export const MAX_ID_LENGTH = 256;

/** What the check needs to know of a resource. */
export interface WriteRules {
  fields: Pick<FieldRules, 'writable' | 'protected' | 'hidden' | 'openPrefixes' | 'objects' | 'documentArrays'>;
  /** The field that identifies the resource in URLs: its values are bounded by MAX_ID_LENGTH. */
  idField?: string;
}

/**
 * Checks a create or update body as a client sent it, before it reaches Mongoose, and returns a
 * copy that is safe to store:
 *
 * - a JSON object whose keys, at every depth, are fields a client may write: `_id`, the version
 *   key, timestamps and `readonly` fields are refused; unknown and hidden fields are refused with
 *   the same message (no oracle), unless declared `writeOnly`; so are operator keys (`$set`),
 *   dotted keys, `__proto__`-like keys and `_bsontype` (BSON type markers);
 * - nested objects and sub-documents take an object or `null`; arrays of sub-documents take an
 *   array of objects or `null` (a 400 `MR_VALIDATION_FAILED` at the path otherwise), whose
 *   elements' `_id`s, where given, are all different;
 * - below a Mixed or Map field any key is data, minus the keys above;
 * - nesting is bounded (arrays count), numbers are finite (`1e400` parses as Infinity), and
 *   strings holding U+0000 are refused (PostgreSQL's JSONB cannot store it), and strings are made well-formed (a lone surrogate becomes U+FFFD, as the database
 *   would store it), so the answer shows what was stored.
 *
 * Values are otherwise left to the schema's casts and validators. A key that may not be written is
 * a 400 `MR_INVALID_BODY` at once; values of the wrong shape are all told in one 400
 * `MR_VALIDATION_FAILED`, one detail each.
 *
 * @publicApi
 */
export function checkWriteBody(body: unknown, rules: WriteRules): Record<string, unknown> {
  const { data, failures } = inspectWriteBody(body, rules);
  if (failures.length > 0) throw valueFailures(failures);
  return data;
}

/**
 * `checkWriteBody`, but the values of the wrong shape are answered rather than thrown, left in
 * `data` as sent: a caller that checks the values next (a DTO class) tells every mistake of the body
 * in one answer, not only the first (`valueFailures` makes the error of them).
 */
export function inspectWriteBody(body: unknown, rules: WriteRules): { data: Record<string, unknown>; failures: ErrorDetail[] } {
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The request body must be a JSON object');
  const failures: ErrorDetail[] = [];
  return { data: checkObject(body, '', '', rules, 0, failures), failures };
}

/** The 400 `MR_VALIDATION_FAILED` of values refused: one detail each, the message naming their paths. */
export function valueFailures(failures: readonly ErrorDetail[]): ModelRoutesException {
  if (failures.length === 1) return ModelRoutesException.validationFailed(failures[0].path, failures[0].message);
  const paths = [...new Set(failures.map((failure) => failure.path))].join(', ');
  return new ModelRoutesException('MR_VALIDATION_FAILED', `Validation failed for ${paths}`, [...failures]);
}

/**
 * `path` is where a value sits in the body (`items.0.qty`, for error details); `field` is the
 * schema path it is checked against (`items.qty`). A value of the wrong shape goes to `failures`.
 */
function checkObject(
  value: Record<string, unknown>,
  path: string,
  field: string,
  rules: WriteRules,
  depth: number,
  failures: ErrorDetail[],
): Record<string, unknown> {
  if (depth > MAX_BODY_DEPTH) throw ModelRoutesException.invalidBody(path, 'The body is nested too deeply');
  const { fields } = rules;
  const checked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const name = field ? `${field}.${key}` : key;
    assertKey(key, at);
    if (fields.protected.has(name)) throw ModelRoutesException.invalidBody(at, `Field '${at}' cannot be written`);
    if (!fields.writable.has(name)) throw ModelRoutesException.invalidBody(at, `Unknown field '${at}'`);
    if (name === rules.idField && typeof item === 'string' && item.length > MAX_ID_LENGTH) {
      failures.push({ path: at, message: `must be at most ${MAX_ID_LENGTH} characters long` });
    }
    checked[toWellFormed(key)] = checkValue(item, at, name, rules, depth + 1, failures);
  }
  return checked;
}

function checkValue(value: unknown, path: string, field: string, rules: WriteRules, depth: number, failures: ErrorDetail[]): unknown {
  const { fields } = rules;
  if (depth > MAX_BODY_DEPTH) throw ModelRoutesException.invalidBody(path, 'The body is nested too deeply');
  if (value === null) return null;
  if (fields.openPrefixes.includes(field)) return checkFreeForm(value, path, depth, failures);
  if (fields.objects.has(field)) {
    if (isPlainObject(value)) return checkObject(value, path, field, rules, depth, failures);
    failures.push({ path, message: `${propertyOf(path)} must be an object` });
    return value;
  }
  if (fields.documentArrays.has(field)) {
    if (!Array.isArray(value)) {
      failures.push({ path, message: `${propertyOf(path)} must be an array of objects` });
      return value;
    }
    // An element's `_id` is how its element routes name it: two elements with one `_id` would be one to them.
    const ids = new Map<string, number>();
    return value.map((item, index) => {
      if (!isPlainObject(item)) {
        failures.push({ path: `${path}.${index}`, message: `${propertyOf(path)} must be an object` });
        return item;
      }
      if (item._id !== undefined && item._id !== null) {
        const first = ids.get(String(item._id));
        if (first !== undefined) failures.push({ path: `${path}.${index}._id`, message: `repeats the _id of element ${first}: each element has its own` });
        else ids.set(String(item._id), index);
      }
      return checkObject(item, `${path}.${index}`, field, rules, depth + 1, failures);
    });
  }
  // A scalar field: objects and arrays are left to the schema's cast, minus the keys no value may hold.
  return checkFreeForm(value, path, depth, failures);
}

/** Mixed and Map fields hold any data, minus keys that would act as operators or reach prototypes. */
function checkFreeForm(value: unknown, path: string, depth: number, failures: ErrorDetail[]): unknown {
  if (depth > MAX_BODY_DEPTH) throw ModelRoutesException.invalidBody(path, 'The body is nested too deeply');
  if (typeof value === 'string') {
    if (hasNulCharacter(value)) failures.push({ path, message: NUL_CHARACTER_MESSAGE });
    return toWellFormed(value);
  }
  // JSON can carry 1e400, which parses as Infinity: no field stores it (MongoDB would, FerretDB refuses).
  if (typeof value === 'number' && !Number.isFinite(value)) failures.push({ path, message: `${propertyOf(path)} must be a finite number` });
  if (Array.isArray(value)) return value.map((item, index) => checkFreeForm(item, `${path}.${index}`, depth + 1, failures));
  if (!isPlainObject(value)) return value;
  const checked: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    assertKey(key, `${path}.${key}`);
    checked[toWellFormed(key)] = checkFreeForm(item, `${path}.${key}`, depth + 1, failures);
  }
  return checked;
}

function assertKey(key: string, path: string): void {
  if (isForbiddenKey(key) || key.startsWith('$') || key.includes('.') || key === '') {
    throw ModelRoutesException.invalidBody(path, `Key '${key}' is not allowed`);
  }
  if (hasNulCharacter(key)) throw ModelRoutesException.invalidBody(path, `Key ${JSON.stringify(key)} ${NUL_CHARACTER_MESSAGE}`);
}

/**
 * The property a detail's message names, as class-validator's do (`name must be a string`): the
 * last key of `path`, not an array position (`lines.1` names `lines`, as `phones.1` is told
 * "phones must be a string").
 */
function propertyOf(path: string): string {
  return normalizePath(path).split('.').pop() || path;
}
