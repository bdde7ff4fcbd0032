import type { Type } from '@nestjs/common';
import { ApiBody, ApiExtraModels } from '@nestjs/swagger';
import type { ResolvedResource, SubTypeDefinition } from '../definitions/resource-definition.interface.js';
import type { OpenApiSchema } from './openapi-schemas.js';

const ref = (name: string) => `#/components/schemas/${name}`;

/**
 * `oneOf` the sub-types' schemas (named by `nameOf`), with a `discriminator` whose `mapping` names
 * the schema of each value of the key: what clients generate a tagged union from.
 */
export function subTypesUnion(definition: Pick<ResolvedResource, 'discriminator'>, nameOf: (type: SubTypeDefinition) => string): OpenApiSchema {
  const { key, types } = definition.discriminator!;
  return {
    oneOf: types.map((type) => ({ $ref: ref(nameOf(type)) })),
    discriminator: { propertyName: key, mapping: Object.fromEntries(types.map((type) => [type.value, ref(nameOf(type))])) },
  };
}

/** The definition a sub-type's schemas are read from: the resource's rules over the sub-type's merged schema. */
export function subTypeDefinition(definition: ResolvedResource, type: SubTypeDefinition): ResolvedResource {
  return { ...definition, name: type.name, schema: type.schema };
}

/**
 * The body of a resource's create with sub-types, where the route takes the generated body: `oneOf`
 * the sub-types' create DTOs (`BookCreateDto`, `ShirtCreateDto`), by the key.
 */
export function subTypesBody(definition: ResolvedResource, dto: Type | undefined): MethodDecorator[] | undefined {
  if (!definition.discriminator || dto !== definition.dtos.create) return undefined;
  const dtos = definition.discriminator.types.map((type) => type.dtos.create);
  return [ApiExtraModels(...dtos) as MethodDecorator, ApiBody({ required: true, schema: subTypesUnion(definition, (type) => type.dtos.create.name) as never })];
}

/**
 * In a sub-type's schema (a document, or its create body), the key is the sub-type's own value, and required:
 * what makes exactly one branch of the `oneOf` match.
 */
export function withSubTypeKey(schema: OpenApiSchema | undefined, key: string, value: string): void {
  if (!schema) return;
  schema.properties = { ...(schema.properties as object), [key]: { type: 'string', enum: [value] } };
  const required = (schema.required as string[] | undefined) ?? [];
  if (!required.includes(key)) schema.required = [...required, key];
}
