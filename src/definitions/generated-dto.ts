import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { findEmbeddedReferences, findReferences } from './field-rules.factory.js';
import { resourceFieldRules, resourceMetadata } from './resource-fields.factory.js';
import { createResourceSchema } from './schema.factory.js';
import type { DtoOption, GeneratedResourceOptions } from '../interfaces/generated-resource-options.interface.js';
import type { FieldRules } from '../metadata/field-rules.interface.js';
import { ResourceMetadataStorage } from '../storages/resource-metadata.storage.js';
import { createResourceDtos, type ResourceDtos } from '../dto/resource-dto.factory.js';

/**
 * The bodies a resource's routes take: `create` (`POST /company`), `update` (`PUT|PATCH`), `search` (`POST /companies`).
 *
 * @publicApi
 */
export type DtoKind = 'create' | 'update' | 'search';

/**
 * The DTO class the library generates from a resource's schema for one kind of body
 * (`CompanyCreateDto`, `CompanyUpdateDto`, `CompanySearchDto`): the same class every call, and the
 * one its routes use unless `@GeneratedResource({ dto })` names another. Extend it to add rules:
 *
 * ```ts
 * export class CreateCompanyDto extends GeneratedDto(Company, 'create') {
 *   @IsEmail() contact!: string;            // a schema field, with a stricter rule
 * }
 * ```
 *
 * Call it after the resource class is declared (in the same file below it, or in a file that
 * imports it), and name the class in `@GeneratedResource({ dto: { create: () => CreateCompanyDto } })`.
 *
 * @param resource a class decorated with `@GeneratedResource()` and `@Schema()`
 *
 * @publicApi
 */
export function GeneratedDto(resource: Type, kind: DtoKind): Type {
  return generatedDtos(resource, () => {
    const schema = createResourceSchema(resource);
    return buildDtos(resource, schema, resourceFieldRules(resource, schema, resourceMetadata(resource)).fields);
  })[kind];
}

/**
 * The body classes of a resource's routes: the user's (`dto` option) where given, else those
 * generated from its schema. Generated from the class's own schema (no `schema` registered with
 * it), they are made once per class, so `GeneratedDto()` returns the very classes the routes use.
 */
export function resourceDtos(resource: Type, schema: Schema, fields: FieldRules, given: boolean, metadata: GeneratedResourceOptions): ResourceDtos {
  const generated = given ? buildDtos(resource, schema, fields) : generatedDtos(resource, () => buildDtos(resource, schema, fields));
  return {
    create: userDto(resource, 'create', metadata.dto?.create) ?? generated.create,
    update: userDto(resource, 'update', metadata.dto?.update) ?? generated.update,
    search: generated.search,
    elements: generated.elements,
  };
}

const generatedByClass = new WeakMap<Type, ResourceDtos>();

function generatedDtos(resource: Type, build: () => ResourceDtos): ResourceDtos {
  let dtos = generatedByClass.get(resource);
  if (!dtos) generatedByClass.set(resource, (dtos = build()));
  return dtos;
}

/** The create and update bodies of a sub-type (`BookCreateDto`), from its merged schema and the rules of its fields. */
export function subTypeDtos(resource: Type, name: string, schema: Schema, fields: FieldRules): Pick<ResourceDtos, 'create' | 'update'> {
  const { create, update } = buildDtos(resource, schema, fields, name);
  return { create, update };
}

function buildDtos(resource: Type, schema: Schema, fields: FieldRules, name = resource.name): ResourceDtos {
  // A reference to a resource identified by a slug may be written with the slug.
  const describe = (field: string) => `${resource.name}.${field}`;
  const references = new Map(
    [...findReferences(schema, describe), ...findEmbeddedReferences(schema, describe)].map(({ field, targetName }) => {
      const targetId = ResourceMetadataStorage.getByName(targetName)?.id;
      return [field, { bySlug: targetId !== undefined && targetId !== '_id' }];
    }),
  );
  return createResourceDtos({ name, schema, fields, references });
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
