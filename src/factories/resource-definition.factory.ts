import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ModelRoutesModuleOptions, ResourceRegistration } from '../interfaces/model-routes-options.interface.js';
import type { FieldRules, ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { ReferenceRoutesOptions } from '../interfaces/route-options.interface.js';
import type { ResolvedSearchOptions, SearchOptions } from '../interfaces/search-options.interface.js';
import { DEFAULT_SEARCH_OPTIONS } from '../metadata/search-defaults.js';
import type { RepositoryDefinition } from '../repository/model-repository.js';
import { ResourceMetadataStorage } from '../storages/resource-metadata.storage.js';
import { idParamName, kebabCase, pluralPath } from '../utils/naming.util.js';
import { createResourceDtos, type ResourceDtos } from '../dto/resource-dto.factory.js';
import type { DtoOption, GeneratedResourceOptions } from '../interfaces/generated-resource-options.interface.js';
import { SerializationViews, excludedPaths } from '../serialization/serialization-views.js';
import { createFieldRules, findReferences, type FieldOptions } from './field-rules.factory.js';
import { assertRouteNames } from './route-options.util.js';
import { createResourceSchema, ensureUniqueIndex } from './schema.factory.js';

/**
 * Reads `@GeneratedResource()` metadata and the Mongoose schema of every listed resource,
 * and checks the set as a whole (paths unique, references resolvable). Runs once, in `forRoot()`.
 */
export function createResourceDefinitions(options: ModelRoutesModuleOptions): ResourceDefinition[] {
  const search = resolveSearchOptions(DEFAULT_SEARCH_OPTIONS, options.search, 'ModelRoutesModule.forRoot({ search })');
  const definitions = options.resources.map((entry) => createResourceDefinition(normalize(entry), search));
  assertUniquePaths(definitions);
  assertRouteOptions(definitions, options);
  completeReferences(definitions, options.references);
  return definitions;
}

/** What a reference needs to know of its target and of the options: the target's id field, whether to check writes. */
function completeReferences(definitions: ResourceDefinition[], defaults: ReferenceRoutesOptions | undefined): void {
  const idFields = new Map(definitions.map((definition) => [definition.name, definition.idField]));
  for (const definition of definitions) {
    for (const reference of definition.references) {
      reference.targetIdField = idFields.get(reference.targetName) ?? '_id';
      reference.checkExists = definition.referenceRoutes?.[reference.field]?.checkExists ?? defaults?.checkExists ?? true;
    }
  }
}

function assertRouteOptions(definitions: ResourceDefinition[], options: ModelRoutesModuleOptions): void {
  assertRouteNames(options.routes, 'resource', 'ModelRoutesModule.forRoot({ routes })');
  assertRouteNames(options.references, 'reference', 'ModelRoutesModule.forRoot({ references })');
  for (const definition of definitions) {
    assertRouteNames(definition.routes, 'resource', `${definition.name}: @GeneratedResource({ routes })`);
    const fields = definition.references.map((reference) => reference.field);
    for (const [field, routes] of Object.entries(definition.referenceRoutes ?? {})) {
      if (!fields.includes(field)) {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_UNKNOWN_ROUTE',
          `${definition.name}: @GeneratedResource({ references: { ${field} } }) names no reference field; ` +
            `the reference fields of ${definition.name} are ${fields.join(', ') || '(none)'}.`,
        );
      }
      assertRouteNames(routes, 'reference', `${definition.name}: @GeneratedResource({ references: { ${field} } })`);
    }
  }
}

function normalize(entry: Type | ResourceRegistration): { resource: Type; schema?: Schema } {
  return typeof entry === 'function' ? { resource: entry } : entry;
}

export function createResourceDefinition(
  { resource, schema: given }: { resource: Type; schema?: Schema },
  defaults: ResolvedSearchOptions = DEFAULT_SEARCH_OPTIONS,
): ResourceDefinition {
  const metadata = resourceMetadata(resource);
  const schema = createResourceSchema(resource, given);
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
  const { fields, serialization } = resourceFieldRules(resource, schema, metadata);
  const generated = given ? buildDtos(resource, schema, fields) : generatedDtos(resource, () => buildDtos(resource, schema, fields));
  return {
    target: resource,
    name: resource.name,
    path,
    plural,
    idField,
    idParam: idParamName(path),
    schema,
    references: findReferences(schema, (field) => `${resource.name}.${field}`)
      .filter((reference) => !fields.hidden.has(reference.field))
      // Completed by createResourceDefinitions(), which knows every resource.
      .map((reference) => ({ ...reference, targetIdField: '_id', checkExists: true })),
    fields,
    dtos: {
      create: userDto(resource, 'create', metadata.dto?.create) ?? generated.create,
      update: userDto(resource, 'update', metadata.dto?.update) ?? generated.update,
      search: generated.search,
    },
    serialization,
    search: resolveSearchOptions(defaults, metadata.search, `${resource.name}: @GeneratedResource({ search })`),
    ownSearch: metadata.search,
    routes: metadata.routes,
    referenceRoutes: metadata.references,
  };
}

function resourceMetadata(resource: Type): GeneratedResourceOptions {
  const metadata = ResourceMetadataStorage.get(resource);
  if (!metadata) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_NOT_A_RESOURCE',
      `${resource.name} is listed in ModelRoutesModule.forRoot({ resources }) but has no @GeneratedResource(). ` +
        `Add @GeneratedResource() above @Schema() on ${resource.name}.`,
    );
  }
  return metadata;
}

/**
 * The schema's field rules with the resource's own lists (each field of which the schema must have)
 * and class-transformer's decorators (see `createSerializedFieldRules`).
 */
function resourceFieldRules(resource: Type, schema: Schema, metadata: GeneratedResourceOptions): Pick<ResourceDefinition, 'fields' | 'serialization'> {
  for (const option of ['hidden', 'readonly', 'writeOnly'] as const) {
    for (const field of metadata[option] ?? []) {
      if (!schema.path(field) && schema.pathType(field) !== 'nested') {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_UNKNOWN_FIELD',
          `${resource.name}: @GeneratedResource({ ${option}: ['${field}'] }) names a field the schema does not have. ` +
            `Check the spelling, or remove it from ${option}.`,
        );
      }
    }
  }
  return createSerializedFieldRules(resource, schema, { hidden: metadata.hidden, readonly: metadata.readonly, writeOnly: metadata.writeOnly });
}

/** The DTOs generated from each resource's own schema (no schema given), made once per class. */
const generatedByClass = new WeakMap<Type, ResourceDtos>();

function generatedDtos(resource: Type, build: () => ResourceDtos): ResourceDtos {
  let dtos = generatedByClass.get(resource);
  if (!dtos) generatedByClass.set(resource, (dtos = build()));
  return dtos;
}

/**
 * The DTO classes generated from a resource's schema, as `SchemaFactory.createForClass()` builds
 * it: those `forRoot` uses when no schema is given with the resource, and no `dto` option replaces them.
 */
export function generatedResourceDtos(resource: Type): ResourceDtos {
  return generatedDtos(resource, () => {
    const schema = createResourceSchema(resource);
    return buildDtos(resource, schema, resourceFieldRules(resource, schema, resourceMetadata(resource)).fields);
  });
}

function buildDtos(resource: Type, schema: Schema, fields: FieldRules): ResourceDtos {
  // A reference to a resource identified by a slug may be written with the slug.
  const references = new Map(
    findReferences(schema, (field) => `${resource.name}.${field}`).map(({ field, targetName }) => {
      const targetId = ResourceMetadataStorage.getByName(targetName)?.id;
      return [field, { bySlug: targetId !== undefined && targetId !== '_id' }];
    }),
  );
  return createResourceDtos({ name: resource.name, schema, fields, references });
}

/** The class of a `dto` option: given, or returned by an arrow function (which has no prototype). */
function userDto(resource: Type, kind: string, option: DtoOption | undefined): Type | undefined {
  if (option === undefined) return undefined;
  const dto = typeof option === 'function' && !option.prototype ? (option as () => Type)() : option;
  if (typeof dto !== 'function' || !dto.prototype) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: @GeneratedResource({ dto: { ${kind} } }) must be a class, or an arrow function returning one.`,
    );
  }
  return dto as Type;
}

/**
 * The field rules of a resource, with the paths that class-transformer leaves out for every group
 * (`@Exclude()`) hidden, and the views of the paths only some groups see (`@Expose({ groups })`).
 */
function createSerializedFieldRules(resource: Type, schema: Schema, options: FieldOptions): Pick<ResourceDefinition, 'fields' | 'serialization'> {
  const rules = createFieldRules(schema, options);
  const excluded = excludedPaths(resource, schema, rules.readable);
  const fields = excluded.length ? createFieldRules(schema, { ...options, hidden: [...(options.hidden ?? []), ...excluded] }) : rules;
  const serialization = SerializationViews.of(resource, schema, fields);
  for (const reference of findReferences(schema, (field) => `${resource.name}.${field}`)) {
    if (serialization?.groupOnly.has(reference.field)) {
      // Its reference routes would answer what the field holds, and the reverse routes filter on it.
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `${resource.name}.${reference.field}: a reference field cannot be shown to some groups only (@Expose({ groups })); ` +
          `its reference routes would show it to every client. Hide it from all (@Exclude()), or expose it to all.`,
      );
    }
  }
  return { fields, serialization };
}

/**
 * The definitions with the search settings of `forRoot` (or of `forRootAsync`'s factory, known only
 * at startup) in force, under each resource's own `search` option: new objects, the given ones untouched.
 */
export function withSearchSettings(definitions: readonly ResourceDefinition[], search: SearchOptions | undefined): ResourceDefinition[] {
  const defaults = resolveSearchOptions(DEFAULT_SEARCH_OPTIONS, search, 'ModelRoutesModule settings { search }');
  return definitions.map((definition) => ({
    ...definition,
    search: resolveSearchOptions(defaults, definition.ownSearch, `${definition.name}: @GeneratedResource({ search })`),
  }));
}

function resolveSearchOptions(
  defaults: ResolvedSearchOptions,
  given: SearchOptions = {},
  where: string,
): ResolvedSearchOptions {
  const search: ResolvedSearchOptions = { ...defaults };
  const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${message}`);
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_SEARCH_OPTIONS)) {
      throw invalid(`unknown option ${key}; use ${Object.keys(DEFAULT_SEARCH_OPTIONS).join(', ')}.`);
    }
    if (value === undefined) continue;
    if (typeof DEFAULT_SEARCH_OPTIONS[key as keyof SearchOptions] === 'boolean') {
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
    for (const [option, segment] of [['path', definition.path], ['plural', definition.plural]] as const) {
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
 * (the target of a `ref`): its fields, read from its schema, and `_id` as identifier.
 */
export function createModelDefinition(model: { modelName: string; schema: Schema }): RepositoryDefinition {
  return {
    name: model.modelName,
    idField: '_id',
    schema: model.schema,
    fields: createFieldRules(model.schema),
    search: DEFAULT_SEARCH_OPTIONS,
    references: [],
  };
}
