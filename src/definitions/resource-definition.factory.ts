import type { HistoryOptions } from '../interfaces/generated-resource-options.interface.js';
import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ModelRoutesModuleOptions, ModelRoutesSettings, ResourceRegistration } from '../interfaces/model-routes-options.interface.js';
import type { ElementFieldDefinition, ResolvedResource, ResourceDefinition } from './resource-definition.interface.js';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import type { ElementRoutesOptions, ReferenceRoutesOptions } from '../interfaces/route-options.interface.js';
import type { ResolvedSearchOptions, SearchOptions } from '../interfaces/search-options.interface.js';
import { DEFAULT_SEARCH_OPTIONS } from '../query/search-defaults.js';
import { COUNT_POLICIES, isCountPolicy } from '../metadata/count-policies.js';
import type { RepositoryDefinition } from './repository-definition.interface.js';
import { idParamName, kebabCase, pluralPath } from '../utils/naming.util.js';
import { resourceDtos, subTypeDtos } from './generated-dto.js';
import { findFileFields } from '../files/file-options.js';
import { findDeleteRules } from './delete-rules.factory.js';
import { createFieldRules, findEmbeddedReferences, findReferences } from './field-rules.factory.js';
import { isUnderAny } from '../query/field-path.util.js';
import { resourceFieldRules, resourceMetadata } from './resource-fields.factory.js';
import { assertRouteNames, assertVersion } from './route-options.util.js';
import { createResourceSchema, ensureUniqueIndex } from './schema.factory.js';
import { compileSubTypes, declareDiscriminators, unionSchema } from './discriminators.factory.js';
import { ownsField } from './sub-types.util.js';
import type { DiscriminatorRegistration } from '../interfaces/model-routes-options.interface.js';
import type { DiscriminatorDefinition } from './resource-definition.interface.js';
import type { ResourceDtos } from '../dto/resource-dto.factory.js';

/**
 * Reads `@GeneratedResource()` metadata and the Mongoose schema of every listed resource,
 * and checks the set as a whole (paths unique, references resolvable). Runs once, in `forRoot()`.
 */
export function createResourceDefinitions(options: ModelRoutesModuleOptions): ResourceDefinition[] {
  const definitions = options.resources
    .map((entry) => createResourceDefinition(normalize(entry)))
    .map((definition): ResourceDefinition =>
      definition.version === undefined && options.version !== undefined ? { ...definition, version: options.version } : definition,
    );
  assertUniquePaths(definitions);
  assertRouteOptions(definitions, options);
  completeReferences(definitions, options.references);
  completeElements(definitions, options.elements);
  // Checked now, so that a wrong search option fails forRoot(), naming it: forRoot's settings, or
  // the defaults under forRootAsync. Each app resolves its own when its settings are known.
  resolveResources(definitions, options, 'ModelRoutesModule.forRoot({ search })');
  return definitions;
}

/** The default number of elements `addElement` lets an array of sub-documents hold. */
export const DEFAULT_MAX_ELEMENTS = 1000;

/** Each array's `maxElements`: its own option, else `forRoot({ elements })`'s, else the default. */
function completeElements(definitions: ResourceDefinition[], defaults: ElementRoutesOptions | undefined): void {
  for (const definition of definitions) {
    for (const element of definition.elements) {
      element.maxElements = definition.elementRoutes?.[element.field]?.maxElements ?? defaults?.maxElements ?? DEFAULT_MAX_ELEMENTS;
    }
  }
}

/**
 * The arrays of sub-documents that get element routes: top-level, written by clients (not
 * `readonly`, holding no hidden field), not a file gallery, and whose elements have an `_id` to
 * be addressed by (not with `_id: false`).
 */
function findElementFields(schema: Schema, fields: FieldRules, fileFields: readonly string[]): ElementFieldDefinition[] {
  return [...fields.documentArrays]
    .filter((field) => !field.includes('.') && fields.writable.has(field) && !fileFields.includes(field))
    .filter((field) => Boolean((schema.path(field) as { schema?: Schema } | undefined)?.schema?.path('_id')))
    .map((field) => ({ field, maxElements: DEFAULT_MAX_ELEMENTS }));
}

/** What a reference needs to know of its target and of the options: the target's id field, whether to check writes. */
function completeReferences(definitions: ResourceDefinition[], defaults: ReferenceRoutesOptions | undefined): void {
  const idFields = new Map(definitions.map((definition) => [definition.name, definition.idField]));
  for (const definition of definitions) {
    for (const reference of [...definition.references, ...(definition.embeddedReferences ?? [])]) {
      reference.targetIdField = idFields.get(reference.targetName) ?? '_id';
      reference.checkExists = definition.referenceRoutes?.[reference.field]?.checkExists ?? defaults?.checkExists ?? true;
    }
    for (const reference of definition.references) {
      const own = definition.referenceRoutes?.[reference.field];
      reference.expand = own?.expand ?? defaults?.expand ?? false;
      reference.filter = own?.filter ?? defaults?.filter ?? false;
      const reverse = own?.expandReverse ?? defaults?.expandReverse;
      if (reverse !== undefined) reference.expandReverse = reverse;
    }
  }
  completeReverseExpansions(definitions);
}

/**
 * Gives each resource the reverse expansions other resources declared on their references to it
 * (`expandReverse`), refusing a name that is a field of its schema or used twice, and one on a
 * reference to a model that is not a resource (nothing would expand it).
 */
function completeReverseExpansions(definitions: ResourceDefinition[]): void {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  for (const definition of definitions) delete definition.reverseExpansions;
  for (const source of definitions) {
    for (const { field, targetName, expandReverse: name } of source.references) {
      if (name === undefined) continue;
      const invalid = (why: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${source.name}.${field}: expandReverse '${name}' ${why}.`);
      const target = byName.get(targetName);
      if (!target) throw invalid(`references ${targetName}, which is not a resource: nothing would expand it`);
      if (target.schema.path(name) || target.schema.virtualpath(name) || name.startsWith('_'))
        throw invalid(`is a field of ${targetName} (or starts with _); choose another name`);
      const taken = target.reverseExpansions?.find((other) => other.name === name);
      if (taken) throw invalid(`is already ${taken.source}.${taken.field}'s name for the ${targetName} documents; choose another name`);
      (target.reverseExpansions ??= []).push({ name, source: source.name, field });
    }
  }
}

function assertRouteOptions(definitions: ResourceDefinition[], options: ModelRoutesModuleOptions): void {
  assertRouteNames(options.routes, 'resource', 'ModelRoutesModule.forRoot({ routes })');
  assertRouteNames(options.references, 'reference', 'ModelRoutesModule.forRoot({ references })');
  assertRouteNames(options.files, 'file', 'ModelRoutesModule.forRoot({ files })');
  assertRouteNames(options.elements, 'element', 'ModelRoutesModule.forRoot({ elements })');
  assertVersion(options.version, 'ModelRoutesModule.forRoot({ version })');
  for (const definition of definitions) {
    assertVersion(definition.version, `${definition.name}: @GeneratedResource({ version })`);
    assertRouteNames(definition.routes, 'resource', `${definition.name}: @GeneratedResource({ routes })`);
    assertFieldRoutes(
      definition,
      'references',
      definition.referenceRoutes,
      definition.references.map((reference) => reference.field),
    );
    assertFieldRoutes(
      definition,
      'files',
      definition.fileRoutes,
      definition.files.map((file) => file.field),
    );
    assertFieldRoutes(
      definition,
      'elements',
      definition.elementRoutes,
      definition.elements.map((element) => element.field),
    );
  }
}

const FIELD_KINDS = { references: 'reference', files: 'file', elements: 'element' } as const;
const FIELD_NOUNS = { references: 'reference field', files: 'file field', elements: 'array of sub-documents with element routes' } as const;

/** The route options of a resource's reference, file or sub-document array fields name such fields, and routes of theirs. */
function assertFieldRoutes(
  definition: ResourceDefinition,
  option: keyof typeof FIELD_KINDS,
  given: Record<string, object> | undefined,
  fields: string[],
): void {
  const kind = FIELD_KINDS[option];
  for (const [field, routes] of Object.entries(given ?? {})) {
    if (!fields.includes(field)) {
      const noun = FIELD_NOUNS[option];
      const why = option === 'elements' ? ' (a top-level array of sub-documents that clients write, whose elements have an _id)' : '';
      throw new ModelRoutesConfigError(
        'MR_CONFIG_UNKNOWN_ROUTE',
        `${definition.name}: @GeneratedResource({ ${option}: { ${field} } }) names no ${noun}${why}; ` +
          `the ${kind} fields of ${definition.name} are ${fields.join(', ') || '(none)'}.`,
      );
    }
    assertRouteNames(routes, kind, `${definition.name}: @GeneratedResource({ ${option}: { ${field} } })`);
  }
}

function normalize(entry: Type | ResourceRegistration): ResourceEntry {
  return typeof entry === 'function' ? { resource: entry } : entry;
}

interface ResourceEntry {
  resource: Type;
  schema?: Schema;
  discriminators?: DiscriminatorRegistration[];
}

export function createResourceDefinition({ resource, schema: given, discriminators }: ResourceEntry): ResourceDefinition {
  const metadata = resourceMetadata(resource);
  const modelSchema = createResourceSchema(resource, given);
  declareDiscriminators(resource, modelSchema, metadata.discriminators, discriminators);
  return createDefinition(resource, modelSchema, metadata, given !== undefined);
}

function createDefinition(resource: Type, modelSchema: Schema, metadata: ReturnType<typeof resourceMetadata>, given: boolean): ResourceDefinition {
  let schema = modelSchema;
  const path = metadata.path ?? kebabCase(resource.name);
  const plural = metadata.plural ?? pluralPath(path);
  const idField = metadata.id ?? '_id';
  assertPathSegment(resource, 'path', path);
  assertPathSegment(resource, 'plural', plural);
  if (!schema.path(idField)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_UNKNOWN_ID_FIELD',
      `${resource.name}: @GeneratedResource({ id: '${idField}' }) names a field the schema does not have. ` +
        `Add @Prop({ unique: true }) ${idField} to ${resource.name}, or remove the id option.`,
    );
  }
  ensureUniqueIndex(schema, idField);
  const softDelete = softDeleteOption(resource, schema, metadata.softDelete);
  // The sub-types are compiled once the base schema is complete (its unique id, its soft delete field).
  const subTypes = compileSubTypes(resource, modelSchema);
  if (subTypes) schema = unionSchema(resource, modelSchema, subTypes.key, subTypes.types);
  // Checked here, so that a wrong `onDelete` fails forRoot(); the rules themselves are read from
  // every model of the connection when the app initialises (DeleteCascades).
  findDeleteRules(schema, resource.name);
  const files = findFileFields(schema);
  // Only the file routes write a file field; only a delete and a restore, the mark of a deleted document.
  const readonly = [...(metadata.readonly ?? []), ...files.map((file) => file.field), ...(softDelete ? [softDelete.field] : [])];
  const { fields, serialization } = resourceFieldRules(resource, schema, { ...metadata, readonly });
  return {
    target: resource,
    name: resource.name,
    path,
    plural,
    idField,
    idParam: idParamName(path),
    schema,
    ...(subTypes && { modelSchema }),
    references: findReferences(schema, (field) => `${resource.name}.${field}`)
      .filter((reference) => !fields.hidden.has(reference.field))
      // Completed by createResourceDefinitions(), which knows every resource.
      .map((reference) => ({
        ...reference,
        targetIdField: '_id',
        checkExists: true,
        expand: false,
        filter: false,
        ...acyclicOption(resource, schema, reference),
      })),
    embeddedReferences: findEmbeddedReferences(schema, (field) => `${resource.name}.${field}`)
      .filter((reference) => !isUnderAny(reference.field, fields.hidden))
      .map((reference) => ({ ...reference, targetIdField: '_id', checkExists: true })),
    files: files.filter((file) => !fields.hidden.has(file.field)),
    elements: findElementFields(
      schema,
      fields,
      files.map((file) => file.field),
    ),
    fields,
    // The class's own DTOs (GeneratedDto) know no sub-types: a resource with some gets its own.
    dtos: resourceDtos(resource, schema, fields, given || subTypes !== undefined, metadata),
    ...(subTypes && { discriminator: discriminatorDefinition(resource, subTypes, fields) }),
    serialization,
    ...(metadata.version !== undefined && { version: metadata.version }),
    routes: metadata.routes,
    referenceRoutes: metadata.references,
    fileRoutes: metadata.files,
    elementRoutes: metadata.elements,
    ...(metadata.hooks && { hooks: metadata.hooks }),
    ...(metadata.scope && { scope: metadata.scope }),
    ...(softDelete && { softDelete }),
    ...(metadata.history && { history: historyOption(resource, schema, metadata.history) }),
  };
}

/**
 * Each sub-type's bodies: the union's field rules less the paths of the other sub-types, over its
 * merged schema (its own required fields required).
 */
function discriminatorDefinition(resource: Type, subTypes: NonNullable<ReturnType<typeof compileSubTypes>>, fields: FieldRules): DiscriminatorDefinition {
  return {
    key: subTypes.key,
    types: subTypes.types.map(({ name, value, schema, indexed }) => {
      const own: FieldRules = { ...fields, writable: new Set([...fields.writable].filter((path) => ownsField({ schema }, path))) };
      const dtos: Pick<ResourceDtos, 'create' | 'update'> = subTypeDtos(resource, name, schema, own);
      return { name, value, schema, indexed, dtos };
    }),
  };
}

/** A resource's history settings: `keep` a positive integer (default 100); the schema needs its version key, which numbers the versions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
function historyOption(resource: Type, schema: Schema, option: true | HistoryOptions): { keep: number; actor?: (request: any) => string | undefined } {
  const given = option === true ? {} : option;
  const keep = given.keep ?? 100;
  if (!Number.isInteger(keep) || keep < 1)
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: @GeneratedResource({ history: { keep } }) must be a positive integer, not ${String(keep)}.`,
    );
  if (!schema.get('versionKey'))
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: @GeneratedResource({ history }) numbers versions with the schema's version key, which is turned off (versionKey: false).`,
    );
  return { keep, ...(given.actor && { actor: given.actor }) };
}

/**
 * The field that marks a deleted document of a resource with soft delete, added to its schema
 * (a date, `null` while the document lives, indexed) where the schema has no such path; one of
 * another type is a configuration error.
 */
function softDeleteOption(resource: Type, schema: Schema, option: boolean | { field?: string } | undefined): { field: string } | undefined {
  if (!option) return undefined;
  const field = (typeof option === 'object' && option.field) || 'deletedAt';
  const existing = schema.path(field);
  if (!existing) schema.add({ [field]: { type: Date, default: null, index: true } });
  else if (existing.instance !== 'Date') {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: @GeneratedResource({ softDelete }) marks deleted documents in '${field}', which is a ${existing.instance}, not a Date. Name ` +
        `another field, or declare it @Prop({ type: Date, default: null }).`,
    );
  }
  return { field };
}

/** The resources as one app serves them, and the search settings of the models that are not resources. */
export interface ResolvedResources {
  /** The module's search settings over the defaults: those of a referenced model that is not a resource. */
  search: ResolvedSearchOptions;
  resources: ResolvedResource[];
}

/**
 * The one place settings are resolved: each resource's own options (`@GeneratedResource({ search,
 * requireIfMatch })`, read from the metadata storage) over the module's `settings` (`forRoot`'s, or
 * `forRootAsync`'s factory's, known only at startup), over the defaults. New objects, one per
 * resource, the definitions untouched: two apps built from one plan may have different settings.
 *
 * @param where how the errors name the module's search settings
 */
export function resolveResources(
  definitions: readonly ResourceDefinition[],
  { search, requireIfMatch }: ModelRoutesSettings,
  where = 'ModelRoutesModule settings { search }',
): ResolvedResources {
  const defaults = resolveSearchOptions(DEFAULT_SEARCH_OPTIONS, search, where);
  const resources = definitions.map((definition): ResolvedResource => {
    const own = resourceMetadata(definition.target);
    return {
      ...definition,
      search: resolveSearchOptions(defaults, own.search, `${definition.name}: @GeneratedResource({ search })`),
      requireIfMatch: own.requireIfMatch ?? requireIfMatch ?? false,
    };
  });
  return { search: defaults, resources };
}

function resolveSearchOptions(defaults: ResolvedSearchOptions, given: SearchOptions = {}, where: string): ResolvedSearchOptions {
  const search: ResolvedSearchOptions = { ...defaults };
  const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${message}`);
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_SEARCH_OPTIONS) && key !== 'cursorSecret') {
      throw invalid(`unknown option ${key}; use ${[...Object.keys(DEFAULT_SEARCH_OPTIONS), 'cursorSecret'].join(', ')}.`);
    }
    if (value === undefined) continue;
    if (key === 'cursorSecret') {
      if (typeof value !== 'string' || value.length < 16) throw invalid('cursorSecret must be a string of at least 16 characters.');
    } else if (key === 'count') {
      if (!isCountPolicy(value)) throw invalid(`count: ${String(value)} must be one of ${COUNT_POLICIES.map((policy) => `'${policy}'`).join(', ')}.`);
    } else if (typeof DEFAULT_SEARCH_OPTIONS[key as keyof SearchOptions] === 'boolean') {
      if (typeof value !== 'boolean') throw invalid(`${key}: ${String(value)} must be true or false.`);
    } else {
      const minimum = key === 'maxSkip' ? 0 : 1;
      if (!Number.isSafeInteger(value) || (value as number) < minimum) {
        throw invalid(`${key}: ${String(value)} must be an integer of at least ${minimum}.`);
      }
    }
    (search as unknown as Record<string, unknown>)[key] = value;
  }
  if (search.defaultLimit > search.maxLimit) {
    // A lower maxLimit also lowers an inherited default; a default given here must fit.
    if (given.defaultLimit !== undefined) {
      throw invalid(`defaultLimit (${search.defaultLimit}) is larger than maxLimit (${search.maxLimit}).`);
    }
    search.defaultLimit = search.maxLimit;
  }
  return search;
}

/** Default of `acyclic.maxDepth`: how many documents a write may walk up a self-reference. */
export const DEFAULT_ACYCLIC_MAX_DEPTH = 32;

/**
 * `@Prop({ type: Types.ObjectId, ref: 'Category', acyclic: true | { maxDepth } })`: checked, on a
 * single reference of a model to itself only (a cycle needs one).
 */
function acyclicOption(resource: Type, schema: Schema, reference: { field: string; targetName: string; isArray: boolean }): { acyclic?: { maxDepth: number } } {
  const given = (schema.path(reference.field)?.options as { acyclic?: unknown } | undefined)?.acyclic;
  if (given === undefined || given === false) return {};
  const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${resource.name}.${reference.field}: ${message}`);
  if (reference.targetName !== resource.name || reference.isArray) {
    throw invalid(`acyclic applies to a single reference of ${resource.name} to itself (ref: '${resource.name}'); remove it.`);
  }
  const maxDepth = given === true ? DEFAULT_ACYCLIC_MAX_DEPTH : (given as { maxDepth?: unknown } | null)?.maxDepth;
  if (typeof given !== 'boolean' && (typeof given !== 'object' || given === null))
    throw invalid(`acyclic must be true or { maxDepth: <integer of at least 1> }.`);
  if (maxDepth === undefined) return { acyclic: { maxDepth: DEFAULT_ACYCLIC_MAX_DEPTH } };
  if (!Number.isSafeInteger(maxDepth) || (maxDepth as number) < 1) throw invalid(`acyclic.maxDepth: ${String(maxDepth)} must be an integer of at least 1.`);
  return { acyclic: { maxDepth: maxDepth as number } };
}

function assertPathSegment(resource: Type, option: 'path' | 'plural', value: string): void {
  if (!/^[a-z0-9][a-z0-9_-]*$/i.test(value)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: @GeneratedResource({ ${option}: '${value}' }) must be one URL segment of letters, digits, '-' or '_'.`,
    );
  }
}

function assertUniquePaths(definitions: ResourceDefinition[]): void {
  // Express matches paths case-insensitively by default, so `Company` and `company` collide.
  const owners = new Map<string, string>();
  for (const definition of definitions) {
    for (const [option, segment] of [
      ['path', definition.path],
      ['plural', definition.plural],
    ] as const) {
      const previous = owners.get(segment.toLowerCase());
      if (previous) {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_DUPLICATE_PATH',
          `${definition.name}: its ${option} '${segment}' is already used by ${previous}. ` +
            `Give one of them another path or plural in @GeneratedResource().`,
        );
      }
      owners.set(segment.toLowerCase(), `${definition.name} (${option})`);
    }
  }
}

/**
 * What a repository needs of a model that is registered with Mongoose but is not a resource
 * (the target of a `ref`): its fields, read from its schema, `_id` as identifier, and the module's search settings.
 */
export function createModelDefinition(model: { modelName: string; schema: Schema }, search: ResolvedSearchOptions): RepositoryDefinition {
  return {
    name: model.modelName,
    idField: '_id',
    schema: model.schema,
    fields: createFieldRules(model.schema),
    search,
    references: [],
    files: [],
  };
}
