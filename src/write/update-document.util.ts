import type { FieldRules } from '../metadata/field-rules.interface.js';
import { holdsHiddenPath, isPlainObject } from '../query/field-path.util.js';

/** A MongoDB update made of the two operators a merge needs. */
export interface MergeUpdate {
  $set?: Record<string, unknown>;
  $unset?: Record<string, 1>;
}

type ObjectPaths = Pick<FieldRules, 'objects'> & Partial<Pick<FieldRules, 'documentArrays'>>;
type MergeRules = Pick<FieldRules, 'objects' | 'hidden' | 'writable'> & Partial<Pick<FieldRules, 'documentArrays'>>;

/**
 * The update that merges `data` into a stored document, at every depth: a nested object or
 * sub-document sends its sub-fields one by one (`$set: { 'meta.views': 121 }`), so the sub-fields
 * it does not name, hidden ones included, are kept; `null` removes a field (`$unset`), and on an
 * object that holds hidden sub-fields it removes the others, one by one; arrays, Mixed and Map
 * values are replaced whole, the elements of an array of sub-documents as on create (a `null`
 * sub-field is left out).
 *
 * @example
 * toMergeUpdate({ meta: { views: 121 }, location: null }, fields)
 * // { $set: { 'meta.views': 121 }, $unset: { location: 1 } }
 */
export function toMergeUpdate(data: Record<string, unknown>, fields: MergeRules): MergeUpdate {
  const update: MergeUpdate = {};
  flatten(data, '', fields, update);
  return update;
}

function flatten(data: Record<string, unknown>, prefix: string, fields: MergeRules, update: MergeUpdate): void {
  for (const [key, value] of Object.entries(data)) {
    const path = prefix + key;
    if (value === null) for (const cleared of clearedBy(path, fields)) (update.$unset ??= {})[cleared] = 1;
    else if (fields.objects.has(path) && isPlainObject(value)) flatten(value, `${path}.`, fields, update);
    else (update.$set ??= {})[path] = elementsWithoutNulls(value, path, fields);
  }
}

/**
 * What `null` on `path` removes: the field, or, for an object holding hidden sub-fields, its other
 * sub-fields one by one, so that a client cannot erase what it cannot see.
 */
function clearedBy(path: string, fields: MergeRules): string[] {
  if (!fields.objects.has(path) || !holdsHiddenPath(path, fields.hidden)) return [path];
  return [...fields.writable].filter((leaf) => leaf.startsWith(`${path}.`) && !fields.objects.has(leaf));
}

/**
 * The document a create stores: `null` means "no value", as on update, so it is left out at every
 * depth of nested objects and of the elements of arrays of sub-documents (other arrays and
 * free-form values are kept as sent).
 */
export function withoutNulls(data: Record<string, unknown>, fields: ObjectPaths, prefix = ''): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    const path = prefix + key;
    if (value === null) continue;
    result[key] = fields.objects.has(path) && isPlainObject(value) ? withoutNulls(value, fields, `${path}.`) : elementsWithoutNulls(value, path, fields);
  }
  return result;
}

/** The elements of an array of sub-documents at `path`, each stored as on create; any other value as it is. */
function elementsWithoutNulls(value: unknown, path: string, fields: ObjectPaths): unknown {
  if (!fields.documentArrays?.has(path) || !Array.isArray(value)) return value;
  return value.map((item) => (isPlainObject(item) ? withoutNulls(item, fields, `${path}.`) : item));
}

/**
 * `server` laid over `client`, merging nested objects: what custom code sets after the client's
 * body was checked wins, field by field.
 */
export function mergeData(client: Record<string, unknown>, server: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!server) return client;
  const result: Record<string, unknown> = { ...client };
  for (const [key, value] of Object.entries(server)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? mergeData(current, value) : value;
  }
  return result;
}
