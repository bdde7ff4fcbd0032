import type { Schema, SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { OnDelete } from '../interfaces/on-delete.interface.js';
import { referenceOf, resolveRef } from './field-rules.factory.js';

const MODES: readonly OnDelete[] = ['ignore', 'restrict', 'nullify', 'pull'];

/** A reference field whose `onDelete` asks for something: what deleting a document of `targetName` does to `model`'s documents. */
export interface DeleteRule {
  /** The referencing model (`Company`)... */
  model: string;
  /** ...its field (`owner`; dotted in a nested object)... */
  field: string;
  /** ...and the model it references (`Entrepreneur`). */
  targetName: string;
  onDelete: Exclude<OnDelete, 'ignore'>;
}

/**
 * The `onDelete` rules of a schema's reference fields, other than `'ignore'`, checked: a value
 * that is not a mode, `nullify` on an array or a required field, `pull` on a single reference, or
 * `onDelete` on a field that is no reference, is a `ModelRoutesConfigError` naming the field and
 * the fix. On an array, `onDelete` may sit on the array's options or on its element's
 * (`[{ type: ObjectId, ref, onDelete }]`). Only paths that declare `onDelete` are read, so a
 * model with references the library cannot resolve (dynamic `ref` functions) is left alone.
 */
export function findDeleteRules(schema: Schema, modelName: string): DeleteRule[] {
  const rules: DeleteRule[] = [];
  // Sub-documents too (`lastVisit.vet`, `vaccinations.vet`); `inArray`: below an array of sub-documents.
  const visit = (sub: Schema, prefix: string, inArray: boolean): void =>
    void sub.eachPath((path, type) => {
      const field = prefix + path;
      const rule = ruleOf(field, type, modelName, inArray);
      if (rule) rules.push(rule);
      const child = (type as SchemaType & { schema?: Schema }).schema;
      if (child && (type.instance === 'Embedded' || type.instance === 'Array')) visit(child, `${field}.`, inArray || type.instance === 'Array');
    });
  visit(schema, '', false);
  return rules;
}

function ruleOf(field: string, type: SchemaType, modelName: string, inArray: boolean): DeleteRule | undefined {
  const where = `${modelName}.${field}`;
  const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${message}`);
  const name = field.slice(field.lastIndexOf('.') + 1);
  // A model registered with `MongooseModule.forFeature` keeps `@Prop({ type: Types.ObjectId, ref })`
  // as a Mixed path (see createResourceSchema): it still holds one identifier.
  const reference: ReturnType<typeof referenceOf> =
    referenceOf(name, type) ?? (type.instance === 'Mixed' && type.options?.ref ? { ref: type.options.ref, isArray: false } : undefined);
  const own = optionOf(type);
  const inner = optionOf(reference?.element);
  if (own !== undefined && inner !== undefined && own !== inner) {
    throw invalid(`onDelete is given twice, ${JSON.stringify(own)} on the array and ${JSON.stringify(inner)} on its element; keep one.`);
  }
  const declared = own ?? inner;
  if (declared === undefined) return undefined;
  if (!reference) throw invalid(`onDelete applies to reference fields only ({ type: Types.ObjectId, ref } or an array of them); remove it.`);
  if (!MODES.includes(declared as OnDelete))
    throw invalid(`onDelete: ${JSON.stringify(declared)} is not one of ${MODES.map((mode) => `'${mode}'`).join(', ')}.`);
  const mode = declared as OnDelete;
  if (mode === 'nullify' && reference.isArray)
    throw invalid(`onDelete: 'nullify' cannot apply to an array of references; use 'pull', which removes the identifier from the array.`);
  if (mode === 'pull' && !reference.isArray)
    throw invalid(`onDelete: 'pull' applies to arrays of references; use 'nullify' (or 'restrict') on a single reference.`);
  if (mode === 'nullify' && type.isRequired)
    throw invalid(`onDelete: 'nullify' cannot apply to a required field (null would not be valid); use 'restrict', or make the field optional.`);
  if (inArray && (mode === 'nullify' || mode === 'pull')) {
    // Changing every matching element of every document takes `$[]` updates, which FerretDB v1 lacks.
    throw invalid(`onDelete: '${mode}' is not supported inside an array of sub-documents; use 'restrict' (or 'ignore', leaving the reference dangling).`);
  }
  return mode === 'ignore' ? undefined : { model: modelName, field, targetName: resolveRef(reference.ref, where), onDelete: mode };
}

function optionOf(type: SchemaType | undefined): unknown {
  return (type?.options as { onDelete?: unknown } | undefined)?.onDelete;
}
