import type { Schema, SchemaType } from 'mongoose';
import { ERROR_CODES } from '../errors/error-codes.js';
import { QUERY_OPERATORS } from '../query/query-operators.js';
import { isUnderAny as isUnder } from '../query/field-path.util.js';
import { enumValues } from '../utils/schema-enum.util.js';
import { answeredVirtuals } from '../utils/schema-virtuals.util.js';
import type { ResolvedResource, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import { COUNT_POLICIES } from '../metadata/count-policies.js';
import type { SerializationViews } from '../serialization/serialization-views.js';

/**
 * An OpenAPI 3.0 schema object, as plain data (also valid JSON Schema for the parts we emit).
 *
 * @publicApi
 */
export type OpenApiSchema = Record<string, unknown>;

/** `read`: a document in a response; `create` and `update`: request bodies. */
export type SchemaMode = 'read' | 'create' | 'update';

export const OBJECT_ID_SCHEMA: OpenApiSchema = { type: 'string', pattern: '^[0-9a-fA-F]{24}$', example: '6b0229b1c62bd98e28d0e9b2' };

/**
 * The OpenAPI schema of a resource's documents, from its Mongoose schema: types, required,
 * enums, bounds, dates as `date-time`, ObjectIds as 24 hex characters, nested objects and
 * arrays. Hidden fields never appear; request bodies leave out `_id`, the version key,
 * timestamps and readonly fields, refuse unknown properties, and in `update` nothing is required.
 *
 * @publicApi
 */
export function documentSchema(
  definition: Pick<ResourceDefinition, 'schema' | 'fields'> & Partial<Pick<ResourceDefinition, 'references' | 'embeddedReferences' | 'serialization'>>,
  mode: SchemaMode,
): OpenApiSchema {
  const { fields } = definition;
  const include = (path: string) =>
    (!isUnder(path, fields.hidden) || (mode !== 'read' && isUnder(path, fields.writeOnly))) &&
    path !== fields.versionKey &&
    (mode === 'read' || !isUnder(path, fields.protected));
  const schema = objectSchema(definition.schema, '', include, mode);
  if (mode !== 'read') {
    markWriteOnly(schema, fields.writeOnly);
    acceptTargetIds(schema, [...(definition.references ?? []), ...(definition.embeddedReferences ?? [])]);
    if (definition.serialization) describeGroupOnly(schema, definition.serialization, writability);
  } else {
    describeVirtuals(schema, definition.schema);
    if (definition.serialization) describeSerialization(schema, definition.serialization);
  }
  return schema;
}

/**
 * In a response, a field shown to some groups only may be absent whatever the schema requires,
 * and a `@Transform()` may give a value of any type: such a property is described, not typed.
 */
function describeSerialization(schema: OpenApiSchema, serialization: SerializationViews): void {
  for (const path of serialization.transformed) {
    const [parent, name] = parentAt(schema, path);
    const properties = parent?.properties as Record<string, OpenApiSchema> | undefined;
    if (properties?.[name]) properties[name] = { description: 'The value a @Transform() of the class gives' };
  }
  describeGroupOnly(schema, serialization, visibility);
}

/**
 * Which groups see a field, a schema cannot say: its description does, and it is required of no
 * one (absent from the answers of the other groups; refused in their bodies, as an unknown field).
 */
function describeGroupOnly(schema: OpenApiSchema, serialization: SerializationViews, describe: (groups: readonly string[], required: boolean) => string): void {
  for (const path of serialization.groupOnly) {
    const [parent, name] = parentAt(schema, path);
    const required = parent?.required as string[] | undefined;
    const wasRequired = required?.includes(name) === true;
    if (wasRequired) parent!.required = required!.filter((item) => item !== name);
    const property = (parent?.properties as Record<string, OpenApiSchema> | undefined)?.[name];
    if (property) property.description = [property.description, describe(serialization.visibleTo(path), wasRequired)].filter(Boolean).join('. ');
  }
}

/** The virtuals a document answers: read-only, of whatever type their getter gives, absent when it gives none. */
function describeVirtuals(schema: OpenApiSchema, mongooseSchema: Schema): void {
  const properties = schema.properties as Record<string, OpenApiSchema>;
  for (const name of answeredVirtuals(mongooseSchema)) {
    properties[name] ??= { readOnly: true, description: 'A virtual of the schema: computed on each read, never written, never searched' };
  }
}

function visibility(groups: readonly string[]): string {
  return groups.length ? `Visible to groups: ${groups.join(', ')}` : 'Visible to some groups only (@Expose({ groups }))';
}

function writability(groups: readonly string[], required: boolean): string {
  const who = groups.length ? `groups: ${groups.join(', ')}` : 'some groups only (@Expose({ groups }))';
  return `Writable by ${who}${required ? ' (required of them)' : ''}; in the body of another request, refused as an unknown field (400 MR_INVALID_BODY)`;
}

/** The schema of the object that holds a dotted path, and the path's last name. */
function parentAt(schema: OpenApiSchema, path: string): [OpenApiSchema | undefined, string] {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? [schema, path] : [propertyAt(schema, path.slice(0, dot)), path.slice(dot + 1)];
}

/**
 * The object schema at a dotted path of a document schema: a nested object's, or that of each
 * element of an array of sub-documents (what a nested DTO class checks); `''` is the whole.
 */
export function objectAt(schema: OpenApiSchema, path: string): OpenApiSchema | undefined {
  const node = path ? propertyAt(schema, path) : schema;
  return node?.type === 'array' ? (node.items as OpenApiSchema) : node;
}

/** Walks to the property schema of a dotted path, if the document schema has it. */
function propertyAt(schema: OpenApiSchema, path: string): OpenApiSchema | undefined {
  let node: OpenApiSchema | undefined = schema;
  for (const part of path.split('.')) {
    // Below an array of sub-documents: the schema of each element (`vaccinations.vet`).
    if (node?.type === 'array' && node.items) node = node.items as OpenApiSchema;
    node = (node?.properties as Record<string, OpenApiSchema> | undefined)?.[part];
  }
  return node;
}

/**
 * A reference to a resource identified by another field (a slug) takes that field's value on
 * write as well as an `_id`: its request schema is a string, not 24 hex characters.
 */
function acceptTargetIds(schema: OpenApiSchema, references: NonNullable<ResourceDefinition['references']>): void {
  for (const { field, targetName, targetIdField, isArray } of references) {
    if (targetIdField === '_id') continue;
    const property = propertyAt(schema, field);
    const target = isArray ? (property?.items as OpenApiSchema | undefined) : property;
    if (!target) continue;
    delete target.pattern;
    delete target.example;
    target.description = `The _id or the ${targetIdField} of the referenced ${targetName}`;
  }
}

/**
 * A document schema whose references declared `expand: true` are each an identifier or, when the
 * request expands them, the referenced document (`null` where it names none); for a model that is
 * not a resource (no schema of its own in the document), any object. A reverse path declared to it
 * (`expandReverse`) is an array of the referencing documents, present only when expanded.
 *
 * @param schemaOf the schema (a `$ref`) of a referenced model's documents, if it has one
 */
export function expandableSchema(
  schema: OpenApiSchema,
  { references, reverseExpansions }: Pick<ResourceDefinition, 'references' | 'reverseExpansions'>,
  schemaOf: (target: string) => OpenApiSchema | undefined,
): OpenApiSchema {
  const properties = schema.properties as Record<string, OpenApiSchema>;
  for (const { name, source, field } of reverseExpansions ?? []) {
    properties[name] = {
      type: 'array',
      items: schemaOf(source) ?? { type: 'object', additionalProperties: true },
      description: `With expand=${name} only: the ${source} documents whose ${field} names this one (a page of them, see expand)`,
    };
  }
  for (const { field, targetName, isArray, expand } of references) {
    const property = expand ? (schema.properties as Record<string, OpenApiSchema>)[field] : undefined;
    if (!property) continue;
    const document = schemaOf(targetName) ?? { type: 'object', additionalProperties: true };
    const expanded = (id: OpenApiSchema): OpenApiSchema => ({
      oneOf: [id, document],
      description: `${id.description ?? 'An identifier'}; the ${targetName} itself with expand=${field}`,
    });
    if (isArray) property.items = expanded(property.items as OpenApiSchema);
    // `null` where the referenced document is gone: the identifier's branch takes it.
    else (schema.properties as Record<string, OpenApiSchema>)[field] = expanded({ ...property, nullable: true });
  }
  return schema;
}

/**
 * A document schema as a search answers it: `select` may leave out any field, at any depth, so
 * nothing is required but `_id` (a copy; the document's own schema keeps its `required`).
 */
export function selectableSchema(schema: OpenApiSchema): OpenApiSchema {
  const copy = withoutRequired(structuredClone(schema));
  if ((copy.properties as Record<string, unknown> | undefined)?._id) copy.required = ['_id'];
  return copy;
}

function withoutRequired(node: unknown): OpenApiSchema {
  if (Array.isArray(node)) node.forEach(withoutRequired);
  else if (node && typeof node === 'object') {
    // The keyword, an array; a property named `required` is an object, and stays.
    if (Array.isArray((node as OpenApiSchema).required)) delete (node as OpenApiSchema).required;
    Object.values(node).forEach(withoutRequired);
  }
  return node as OpenApiSchema;
}

/** `writeOnly: true` on the properties a client sends but never reads back. */
function markWriteOnly(schema: OpenApiSchema, paths: ReadonlySet<string>): void {
  for (const path of paths) {
    const node = propertyAt(schema, path);
    if (node) node.writeOnly = true;
  }
}

function objectSchema(schema: Schema, prefix: string, include: (path: string) => boolean, mode: SchemaMode): OpenApiSchema {
  const root: OpenApiSchema = { type: 'object', properties: {} };
  if (mode !== 'read') root.additionalProperties = false;
  schema.eachPath((path, type) => {
    if (path.includes('.$*') || !include(prefix + path)) return;
    const parts = path.split('.');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      const properties = node.properties as Record<string, OpenApiSchema>;
      // A nested object is not required as a whole, so it may be null like any other field.
      properties[part] ??= { type: 'object', nullable: true, properties: {}, ...(mode === 'read' ? {} : { additionalProperties: false }) };
      node = properties[part];
    }
    const name = parts[parts.length - 1];
    const required = isRequired(type, path, mode);
    const property = typeSchema(type, prefix + path, include, mode);
    // Mongoose stores null in any field that is not required (`{ "birth": null }` on update).
    if (!required && path !== '_id' && Object.keys(property).length > 0) property.nullable = true;
    (node.properties as Record<string, OpenApiSchema>)[name] = property;
    if (mode !== 'update' && required) ((node.required as string[] | undefined) ?? ((node.required = []) as string[])).push(name);
  });
  return root;
}

function isRequired(type: SchemaType, path: string, mode: SchemaMode): boolean {
  if (path === '_id') return mode === 'read';
  return (type.options as { required?: unknown })?.required === true;
}

function typeSchema(type: SchemaType, path: string, include: (path: string) => boolean, mode: SchemaMode): OpenApiSchema {
  const options = (type.options ?? {}) as Record<string, unknown>;
  const sub = (type as SchemaType & { schema?: Schema }).schema;
  const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
  let result: OpenApiSchema;
  switch (type.instance) {
    case 'String':
      // Mongoose takes both spellings: `minlength` (its documentation's) and `minLength`.
      result = { type: 'string', ...bound('minLength', options.minLength ?? options.minlength), ...bound('maxLength', options.maxLength ?? options.maxlength) };
      if (options.match instanceof RegExp) result.pattern = options.match.source;
      break;
    case 'Number':
    case 'Double':
      result = { type: 'number', ...bound('minimum', options.min), ...bound('maximum', options.max) };
      break;
    case 'Int32':
      result = { type: 'integer', format: 'int32', ...bound('minimum', options.min), ...bound('maximum', options.max) };
      break;
    case 'Date':
      result = { type: 'string', format: 'date-time' };
      break;
    case 'Boolean':
      result = { type: 'boolean' };
      break;
    case 'ObjectId':
      result = { ...OBJECT_ID_SCHEMA };
      if (options.ref) result.description = `Identifier of the referenced ${refName(options.ref)}`;
      break;
    case 'Decimal128':
      result = { type: 'string', format: 'decimal' };
      break;
    case 'UUID':
      result = { type: 'string', format: 'uuid' };
      break;
    case 'Buffer':
      result = { type: 'string', format: 'byte' };
      break;
    case 'Map': {
      // Mongoose keeps the type of a Map's values (`of`) as the Map's `$__schemaType`.
      const values = (type as SchemaType & { $__schemaType?: SchemaType }).$__schemaType ?? element;
      result = { type: 'object', additionalProperties: values ? typeSchema(values, `${path}.$*`, () => true, mode) : {} };
      break;
    }
    case 'Embedded':
      result = sub ? objectSchema(sub, `${path}.`, include, mode) : { type: 'object' };
      break;
    case 'Array':
      result = {
        type: 'array',
        items: sub ? objectSchema(sub, `${path}.`, include, mode) : element ? typeSchema(element, path, include, mode) : {},
      };
      break;
    default:
      result = {}; // Mixed: any JSON value
  }
  const values = enumValues(options.enum);
  // `{ type: [String], enum: [...] }`: Mongoose checks each element against the enum, so the items carry it.
  if (values) (result.type === 'array' && result.items ? (result.items as OpenApiSchema) : result).enum = values;
  // In a response a field with a default is always there; in a request body it may be left out,
  // and client generators would make a property with a `default` required.
  if (options.default !== undefined && typeof options.default !== 'function' && mode === 'read') result.default = options.default;
  return result;
}

function bound(name: string, option: unknown): OpenApiSchema {
  const value = Array.isArray(option) ? option[0] : option;
  return typeof value === 'number' ? { [name]: value } : {};
}

function refName(ref: unknown): string {
  if (typeof ref === 'string') return ref;
  if (typeof ref === 'function') return (ref as { modelName?: string; name: string }).modelName ?? ref.name;
  return 'document';
}

/**
 * The envelope of every list route, with typed `result` items; with `missing`, the list of a
 * document's array of references, which reports the identifiers that name no document.
 *
 * @publicApi
 */
export function envelopeSchema(items: OpenApiSchema, options: { missing?: boolean } = {}): OpenApiSchema {
  const count = (description: string) => ({ type: 'integer', minimum: 0, description });
  const missing = {
    type: 'array',
    items: OBJECT_ID_SCHEMA,
    description: 'Identifiers the array holds that name no document (the referenced documents were deleted)',
  };
  return {
    type: 'object',
    required: ['status', 'result'],
    properties: {
      status: {
        type: 'object',
        required: ['count', 'search_count', 'counted', 'limit', 'skip', ...(options.missing ? ['missing'] : [])],
        additionalProperties: false,
        properties: {
          count: count('Documents of this model in the database'),
          search_count: count('Items in result'),
          match_count: count('Documents that match the query, ignoring limit and skip, as counted says; absent when counted is none'),
          counted: {
            type: 'string',
            enum: [...COUNT_POLICIES],
            description:
              'What match_count is: exact; estimated (the collection metadata of an unfiltered search, a lower bound for a filtered one); none (not counted)',
          },
          limit: { type: 'integer', minimum: 1, description: 'The limit applied' },
          skip: count('The skip applied'),
          next: { type: 'string', description: 'On a sorted search with documents after this page: the cursor that continues after it (send it as `after`)' },
          ...(options.missing ? { missing } : {}),
        },
      },
      result: { type: 'array', items },
    },
  };
}

/**
 * The one error shape.
 *
 * @publicApi
 */
export const ERROR_SCHEMA: OpenApiSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'code', 'message'],
  properties: {
    statusCode: { type: 'integer' },
    error: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    message: { type: 'string' },
    details: {
      type: 'array',
      items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
    },
  },
};

/** What the `after` of a search (parameter or body member) is. */
export const AFTER_TEXT = '`status.next` of the previous page of the same sorted search: the page after it. Not with `skip`.';

/** What a search body's `limit` says of the search settings. */
export function searchLimitText(search: Pick<ResolvedSearchOptions, 'defaultLimit' | 'maxLimit'>): string {
  return `Default ${search.defaultLimit}; at most ${search.maxLimit}, larger values are clamped.`;
}

/** The body of a POST search, `{ query, limit, skip, sort, select, expand, after }`, with the resource's limits. */
export function searchBodySchema(definition: Pick<ResolvedResource, 'schema' | 'fields' | 'search'>): OpenApiSchema {
  const { search } = definition;
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      query: {
        type: 'object',
        additionalProperties: true,
        description: `A MongoDB filter over schema fields; operators: ${Object.keys(QUERY_OPERATORS).join(' ')}.`,
      },
      // Defaults are described, not declared: generators make properties with a default required.
      limit: { type: 'integer', minimum: 1, description: searchLimitText(search) },
      skip: { type: 'integer', minimum: 0, maximum: search.maxSkip, description: 'Default 0.' },
      sort: {
        oneOf: [
          { type: 'object', additionalProperties: { enum: [1, -1, 'asc', 'desc', 'ascending', 'descending'] } },
          { type: 'string', description: `"${sortExample(definition, ' ')}"` },
        ],
      },
      select: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
      // With the paths the app allows, where it allows some (`documentSettings`); absent otherwise.
      expand: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
      after: { type: 'string', description: AFTER_TEXT },
    },
  };
}

/** A sort of the resource's own fields, for the docs: `-createdAt,title`, or `-_id` when it has none. */
export function sortExample(definition: Pick<ResourceDefinition, 'schema' | 'fields'>, separator: string): string {
  const fields = Object.entries(documentSchema(definition, 'read').properties as Record<string, OpenApiSchema>)
    .filter(([name, schema]) => name !== '_id' && ['string', 'number'].includes(schema.type as string))
    .map(([name]) => name);
  return fields.length ? [`-${fields[0]}`, ...fields.slice(1, 2)].join(separator) : '-_id';
}
