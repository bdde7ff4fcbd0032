import type { Schema, SchemaType } from 'mongoose';
import { isRequired } from '../dto/dto-validators.util.js';
import { isPlainObject } from '../query/field-path.util.js';

/** The fields each nested object and single sub-document of a schema requires, by the object's dotted path. */
export type RequiredFields = ReadonlyMap<string, readonly string[]>;

const found = new WeakMap<Schema, RequiredFields>();

/**
 * The fields a new nested object or single sub-document needs, by its dotted path (`address` →
 * `street`, `city`): those of its paths Mongoose requires (`required: true` without a default),
 * at every depth of single sub-documents. Read once per schema.
 */
export function requiredFieldsOf(schema: Schema): RequiredFields {
  let fields = found.get(schema);
  if (!fields) found.set(schema, (fields = collect(schema, '', new Map())));
  return fields;
}

function collect(schema: Schema, prefix: string, into: Map<string, string[]>): Map<string, string[]> {
  schema.eachPath((path, type) => {
    const full = prefix + path;
    const dot = full.lastIndexOf('.');
    // A required field of the document itself is the create's check.
    if (dot > 0 && isRequired(type)) {
      const object = full.slice(0, dot);
      into.set(object, [...(into.get(object) ?? []), full.slice(dot + 1)]);
    }
    const sub = (type as SchemaType & { schema?: Schema }).schema;
    if (sub && type.instance === 'Embedded') collect(sub, `${full}.`, into);
  });
  return into;
}

/**
 * The nested objects and single sub-documents an update body sends without every field a new one
 * requires, by dotted path, with the fields it leaves out. Merged into the stored object field by
 * field, such an object is valid only where the document holds it already: merged into nothing, it
 * would be created without them. `objects`: the paths a body's object is merged into (`FieldRules.objects`).
 */
export function incompleteObjects(
  data: Record<string, unknown>,
  objects: ReadonlySet<string>,
  required: RequiredFields,
  prefix = '',
  into = new Map<string, string[]>(),
): Map<string, string[]> {
  for (const [key, value] of Object.entries(data)) {
    const path = prefix + key;
    if (!objects.has(path) || !isPlainObject(value)) continue;
    const missing = (required.get(path) ?? []).filter((name) => value[name] === undefined);
    if (missing.length > 0) into.set(path, missing);
    incompleteObjects(value, objects, required, `${path}.`, into);
  }
  return into;
}
