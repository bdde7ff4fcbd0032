import type { Schema, SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ReferenceDefinition } from './resource-definition.interface.js';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import { isUnderAny } from '../query/field-path.util.js';
import { enumValues } from '../utils/schema-enum.util.js';

/** Schema types whose sub-paths are free-form: anything below them may be queried and written. */
const OPEN_INSTANCES = new Set(['Mixed', 'Map']);
/** Schema types that hold a sub-schema, whose paths are walked as `parent.child`. */
const NESTED_SCHEMA_INSTANCES = new Set(['Embedded', 'Array']);

/** Field lists a resource adds to what its schema says (`@GeneratedResource({ hidden, readonly, writeOnly })`). */
export interface FieldOptions {
  hidden?: readonly string[];
  readonly?: readonly string[];
  writeOnly?: readonly string[];
}

/**
 * Reads which paths a client may read, filter and write from a built Mongoose schema, walking
 * nested objects, sub-documents and arrays of sub-documents down to their leaves.
 */
export function createFieldRules(schema: Schema, options: FieldOptions = {}): FieldRules {
  const versionKey = schema.get('versionKey') || undefined;
  const protectedFields = new Set<string>(['_id', ...(versionKey ? [versionKey] : []), ...timestampFields(schema), ...(options.readonly ?? [])]);
  const writeOnly = new Set<string>(options.writeOnly ?? []);
  const hidden = new Set<string>([...(options.hidden ?? []), ...writeOnly]);
  const paths = new Set<string>();
  const openPrefixes: string[] = [];
  const enums = new Map<string, Set<string>>();
  const objects = new Set<string>();
  const documentArrays = new Set<string>();

  walkSchema(schema, '', (path, type) => {
    if (versionKey && path === versionKey) return;
    const values = enumValues((type.options as { enum?: unknown } | undefined)?.enum);
    if (values) enums.set(path, new Set(values.map(String)));
    if (type.options?.select === false) hidden.add(path);
    paths.add(path);
    if (OPEN_INSTANCES.has(type.instance) || isPrimitiveArray(type)) openPrefixes.push(path);
    if (type.instance === 'Embedded') objects.add(path);
    if (type.instance === 'Array' && subSchema(type)) documentArrays.add(path);
  });
  // Parents of nested paths (`address` for `address.city`) are fields too: nested objects.
  for (const path of [...paths]) {
    const parts = path.split('.');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('.');
      if (!paths.has(parent)) objects.add(parent);
    }
  }
  for (const parent of objects) paths.add(parent);
  // Replacing such an array whole would erase the hidden values of its elements.
  for (const array of documentArrays) {
    if ([...hidden].some((path) => path.startsWith(`${array}.`) && !isUnderAny(path, writeOnly))) protectedFields.add(array);
  }
  const readable = new Set([...paths].filter((path) => !isUnderAny(path, hidden)));
  const writable = new Set([...paths].filter((path) => !isUnderAny(path, protectedFields) && (!isUnderAny(path, hidden) || isUnderAny(path, writeOnly))));
  return { readable, openPrefixes, hidden, writeOnly, writable, protected: protectedFields, objects, documentArrays, versionKey, enums };
}

function walkSchema(schema: Schema, prefix: string, visit: (path: string, type: SchemaType) => void): void {
  schema.eachPath((path, type) => {
    if (path.includes('.$*')) return; // map values: covered by the map's open prefix
    const full = prefix + path;
    visit(full, type);
    const sub = subSchema(type);
    if (sub && NESTED_SCHEMA_INSTANCES.has(type.instance)) walkSchema(sub, `${full}.`, visit);
  });
}

function isPrimitiveArray(type: SchemaType): boolean {
  return type.instance === 'Array' && !subSchema(type);
}

function subSchema(type: SchemaType): Schema | undefined {
  return (type as SchemaType & { schema?: Schema }).schema;
}

export function timestampFields(schema: Schema): string[] {
  const timestamps = schema.get('timestamps') as boolean | { createdAt?: string | boolean; updatedAt?: string | boolean } | undefined;
  if (!timestamps) return [];
  if (timestamps === true) return ['createdAt', 'updatedAt'];
  const name = (value: string | boolean | undefined, fallback: string) => (value === false ? [] : [typeof value === 'string' ? value : fallback]);
  return [...name(timestamps.createdAt, 'createdAt'), ...name(timestamps.updatedAt, 'updatedAt')];
}

/** A reference field as the schema declares it; the module adds what it knows of the target. */
export type FoundReference = Pick<ReferenceDefinition, 'field' | 'targetName' | 'isArray'>;

/**
 * Finds the `@Prop({ type: ObjectId, ref })` fields (and arrays of them) of a schema.
 * `ref` may be a model name, a class (`() => Entrepreneur`), or a function returning a name.
 */
export function findReferences(schema: Schema, describe: (field: string) => string): FoundReference[] {
  const references: FoundReference[] = [];
  schema.eachPath((field, type) => {
    if (type.options?.select === false) return;
    const reference = referenceOf(field, type);
    if (reference) references.push({ field, targetName: resolveRef(reference.ref, describe(field)), isArray: reference.isArray });
  });
  return references;
}

/**
 * Finds the references inside sub-documents, at any depth: `lastVisit.vet` in a sub-document,
 * `vaccinations.vet` in an array of them (the schema's path, without positions). They get no
 * routes of their own; writes check them as top-level references (see resolveReferences).
 */
export function findEmbeddedReferences(schema: Schema, describe: (field: string) => string): FoundReference[] {
  const references: FoundReference[] = [];
  const visit = (sub: Schema, prefix: string) =>
    sub.eachPath((path, type) => {
      if (type.options?.select === false) return;
      const field = prefix + path;
      const reference = prefix ? referenceOf(path, type) : undefined;
      if (reference) references.push({ field, targetName: resolveRef(reference.ref, describe(field)), isArray: reference.isArray });
      const child = subSchema(type);
      if (child && NESTED_SCHEMA_INSTANCES.has(type.instance)) visit(child, `${field}.`);
    });
  visit(schema, '');
  return references;
}

/** The `ref` of a path that is a reference (`{ type: ObjectId, ref }`, or an array of them), else `undefined`. */
export function referenceOf(field: string, type: SchemaType): { ref: unknown; isArray: boolean; element?: SchemaType } | undefined {
  if (type.instance === 'ObjectId' && type.options?.ref && field !== '_id') return { ref: type.options.ref, isArray: false };
  const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
  const arrayRef = element?.options?.ref ?? type.options?.ref; // `[{ type, ref }]` or `{ type: [ObjectId], ref }`
  if (type.instance === 'Array' && element?.instance === 'ObjectId' && arrayRef) return { ref: arrayRef, isArray: true, element };
  return undefined;
}

/** The model name a `ref` gives; `where` (`Company.owner`) names it in the error of one that gives none. */
export function resolveRef(ref: unknown, where: string): string {
  let value = ref;
  if (typeof value === 'function' && !isModel(value) && !isClass(value)) {
    try {
      value = (value as () => unknown)();
    } catch (error) {
      throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: calling its \`ref\` function failed (${(error as Error).message})`);
    }
  }
  if (typeof value === 'string') return value;
  if (isModel(value)) return (value as { modelName: string }).modelName;
  if (typeof value === 'function' && value.name) return value.name;
  throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: \`ref\` must be a model name, a class, or a function returning one of them`);
}

function isModel(value: unknown): boolean {
  return typeof value === 'function' && typeof (value as { modelName?: unknown }).modelName === 'string';
}

function isClass(value: unknown): boolean {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}
