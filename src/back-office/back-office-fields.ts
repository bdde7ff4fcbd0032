import type { Schema, SchemaType } from 'mongoose';
import type { FileFieldDefinition } from '../files/file-options.js';
import type { ReferenceDefinition, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import { isUnderAny } from '../query/field-path.util.js';
import { enumValues } from '../utils/schema-enum.util.js';
import type { ElementRoute, FieldMetadata, FieldType, FileRoute, ReferenceRoute } from './app/metadata.js';

/** What the fields of a resource need to know beyond its definition. */
export interface FieldContext {
  /** Whether a model name is a resource of the same registration (a reference to it gets routes and a picker). */
  isResource(name: string): boolean;
  /** The enabled routes of a reference, file or sub-document array field of this resource. */
  fieldRoutes(field: string): Array<ReferenceRoute | FileRoute | ElementRoute>;
  /** Whether a client may expand this reference of the resource (declared `expand: true`). */
  isExpandable(reference: ReferenceDefinition): boolean;
  /** For a reference declared `filter: true`: the fields of its target a search may hold conditions on through it (see `filterFieldsOf`). */
  filterFields(reference: ReferenceDefinition): string[] | undefined;
}

type ItemType = NonNullable<FieldMetadata['items']>;

const SCALARS: Record<string, ItemType> = {
  String: 'string',
  UUID: 'string',
  Number: 'number',
  Double: 'number',
  Int32: 'number',
  BigInt: 'number',
  Decimal128: 'number',
  Boolean: 'boolean',
  Date: 'date',
  ObjectId: 'objectId',
};

/**
 * The fields of a resource as the back office shows and edits them, in the order the class
 * declares them, `_id` first: nested objects and single sub-documents as groups, everything the page cannot edit
 * field by field (Mixed, Map, Buffer, arrays of sub-documents) as JSON. Hidden fields and the
 * version key are left out; a `writeOnly` field is kept, flagged, when a client may write it.
 *
 * Walks the Mongoose schema itself: the OpenAPI schemas (src/swagger/) describe JSON types,
 * where the page needs to know references, files and which values it may send.
 */
export function resourceFields(definition: Pick<ResourceDefinition, 'schema' | 'fields' | 'references' | 'files'>, context: FieldContext): FieldMetadata[] {
  const rank = declaredRank(definition.schema);
  return walk(definition.schema, '', definition, context).sort((a, b) => rank(a.path) - rank(b.path));
}

/**
 * Where a top-level field comes in the order the class declares its fields: `_id` first, then the
 * declared fields, then the rest (timestamps). `createResourceSchema` removes and adds again a
 * `Types.ObjectId` reference, which moves it last among the schema's paths; the definition the
 * schema was made of (`schema.obj`) keeps the declared order.
 */
export function declaredRank(schema: Schema): (field: string) => number {
  const declared = Object.keys((schema as Schema & { obj?: object }).obj ?? {});
  return (field) => (field === '_id' ? -1 : declared.includes(field) ? declared.indexOf(field) : declared.length);
}

function walk(schema: Schema, prefix: string, definition: Pick<ResourceDefinition, 'fields' | 'references' | 'files'>, context: FieldContext): FieldMetadata[] {
  const root: FieldMetadata[] = [];
  const groups = new Map<string, FieldMetadata[]>([['', root]]);
  /** The list that holds the fields of the nested object at `parent` (`''`: the top), made on first use. */
  const listOf = (parent: string): FieldMetadata[] => {
    let list = groups.get(parent);
    if (!list) {
      const dot = parent.lastIndexOf('.');
      list = [];
      const path = prefix + parent;
      const readOnly = isUnderAny(path, definition.fields.protected);
      listOf(dot < 0 ? '' : parent.slice(0, dot)).push({ path, type: 'object', fields: list, ...(readOnly && { readOnly: true as const }) });
      groups.set(parent, list);
    }
    return list;
  };
  schema.eachPath((local, type) => {
    if (local.includes('.$*')) return; // a map's values: the map is one JSON field
    const path = prefix + local;
    const field = fieldOf(path, type, definition, context);
    if (!field) return;
    const dot = local.lastIndexOf('.');
    listOf(dot < 0 ? '' : local.slice(0, dot)).push(field);
  });
  return withoutEmptyGroups(root);
}

function fieldOf(
  path: string,
  type: SchemaType,
  definition: Pick<ResourceDefinition, 'fields' | 'references' | 'files'>,
  context: FieldContext,
): FieldMetadata | undefined {
  const { fields } = definition;
  const writeOnly = isUnderAny(path, fields.writeOnly) && fields.writable.has(path);
  if (path === fields.versionKey || (isUnderAny(path, fields.hidden) && !writeOnly)) return undefined;
  const file = definition.files.find((candidate) => candidate.field === path);
  if (file) return fileField(file, context.fieldRoutes(path));
  const reference = definition.references.find((candidate) => candidate.field === path);
  const field: FieldMetadata = { path, ...typeOf(path, type, reference, definition, context) };
  Object.assign(field, constraints(type, field.type));
  // A sub-document's own `_id` is Mongoose's, as the document's is.
  if (isUnderAny(path, fields.protected) || path.endsWith('._id')) field.readOnly = true;
  else if (writeOnly) field.writeOnly = true;
  return field;
}

function typeOf(
  path: string,
  type: SchemaType,
  reference: ReferenceDefinition | undefined,
  definition: Pick<ResourceDefinition, 'fields' | 'references' | 'files'>,
  context: FieldContext,
): Omit<FieldMetadata, 'path'> {
  if (reference && context.isResource(reference.targetName)) {
    return {
      type: reference.isArray ? 'references' : 'reference',
      target: reference.targetName,
      routes: context.fieldRoutes(path),
      ...(context.isExpandable(reference) && { expandable: true as const }),
      ...filterable(context.filterFields(reference)),
    };
  }
  const sub = (type as SchemaType & { schema?: Schema }).schema;
  const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
  if (type.instance === 'Embedded' && sub) return { type: 'object', fields: walk(sub, `${path}.`, definition, context) };
  if (type.instance === 'Array') {
    const items = !sub && element ? SCALARS[element.instance] : undefined;
    if (items) return { type: 'array', items };
    // An array of sub-documents is edited as JSON; its element routes are listed for clients that use them.
    const routes = sub ? context.fieldRoutes(path) : [];
    return routes.length ? { type: 'json', routes } : { type: 'json' };
  }
  const scalar = SCALARS[type.instance] as FieldType | undefined;
  return { type: scalar ?? 'json' };
}

function filterable(filterFields: string[] | undefined): Partial<FieldMetadata> {
  return filterFields ? { filterable: true, filterFields } : {};
}

/** The kinds of field a list's filter panel has an input for: a fragment, a range or a select. */
const FILTER_TYPES: ReadonlySet<FieldType> = new Set(['string', 'number', 'date', 'boolean']);

/**
 * The fields of a resource that a search across a reference to it may hold conditions on, as the
 * back office filters them (`owner.niceName`): its top-level text, number, date and boolean
 * fields, of `fields` as `resourceFields` made them (so never a hidden one), neither `_id` nor a
 * write-only field.
 */
export function filterFieldsOf(fields: readonly FieldMetadata[]): string[] {
  return fields.filter((field) => FILTER_TYPES.has(field.type) && !field.writeOnly && field.path !== '_id').map((field) => field.path);
}

/** `required`, `enum` and the bounds the schema declares (for an array, those of its items). */
function constraints(type: SchemaType, fieldType: FieldType): Partial<FieldMetadata> {
  const options = (type.options ?? {}) as Record<string, unknown>;
  const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
  const itemOptions = (fieldType === 'array' ? (element?.options ?? {}) : options) as Record<string, unknown>;
  const required = options.required === true || (Array.isArray(options.required) && options.required[0] === true);
  const values = enumValues(itemOptions.enum ?? (fieldType === 'array' ? options.enum : undefined));
  return {
    ...(required && { required: true as const }),
    ...(values && { enum: values.map(String) }),
    ...bound('min', itemOptions.min),
    ...bound('max', itemOptions.max),
    // Mongoose takes both spellings: `minlength` (its documentation's) and `minLength`.
    ...bound('minLength', itemOptions.minLength ?? itemOptions.minlength),
    ...bound('maxLength', itemOptions.maxLength ?? itemOptions.maxlength),
  };
}

function bound(name: 'min' | 'max' | 'minLength' | 'maxLength', option: unknown): Partial<FieldMetadata> {
  const value = Array.isArray(option) ? option[0] : option; // `[5, 'message']`
  return typeof value === 'number' ? { [name]: value } : {};
}

function fileField(file: FileFieldDefinition, routes: Array<ReferenceRoute | FileRoute | ElementRoute>): FieldMetadata {
  return {
    path: file.field,
    type: file.gallery ? 'files' : 'file',
    accept: [...file.accept],
    maxSize: file.maxSize,
    ...(file.maxFiles !== undefined && { maxFiles: file.maxFiles }),
    variants: Boolean(file.variants),
    routes,
  };
}

/** A nested object whose every field is hidden is not shown at all. */
function withoutEmptyGroups(fields: FieldMetadata[]): FieldMetadata[] {
  return fields.flatMap((field) => {
    if (field.type !== 'object') return [field];
    const inner = withoutEmptyGroups(field.fields ?? []);
    return inner.length ? [{ ...field, fields: inner }] : [];
  });
}
