import type { Type } from '@nestjs/common';
import { ApiProperty, DECORATORS, type ApiPropertyOptions } from '@nestjs/swagger';
import { generatedDtoShape } from '../dto/resource-dto.factory.js';
import type { ResolvedResource } from '../definitions/resource-definition.interface.js';
import { documentSchema, objectAt, searchBodySchema, type OpenApiSchema } from './openapi-schemas.js';

const described = new WeakSet<Type>();

/**
 * Gives a body's DTO class the `@nestjs/swagger` property metadata it documents itself with, so
 * that the document's request body is the class (`CompanyCreateDto`), as `@nestjs/swagger`
 * explores it:
 *
 * - a generated class (and its nested classes) gets `ApiProperty()` per property, from the schema
 *   the library builds from the Mongoose schema (types, required, enums, bounds, patterns, nullable);
 * - a class of yours keeps its own `@ApiProperty()` (and what swagger's CLI plugin adds); where it
 *   extends a generated class, it gets the parent's properties too, under its own: its decorators
 *   ran at import time, when the parent had no metadata to inherit yet.
 *
 * Done once per class, however often it is called. `generated` receives, by name, the generated
 * classes the body is made of (nested ones too), whose component schemas refuse unknown properties.
 */
export function describeDto(dto: Type, definitions: ReadonlyMap<string, ResolvedResource>, generated: Map<string, Type>): void {
  const chain: Type[] = [];
  for (let current: Type | undefined = dto; current && current !== Object; current = Object.getPrototypeOf(current) as Type | undefined) {
    if (current.prototype) chain.unshift(current);
  }
  chain.forEach((current, index) => {
    if (generatedDtoShape(current)) return describeGenerated(current, definitions, generated);
    if (index > 0 && !described.has(current)) inheritProperties(current, chain[index - 1]);
    described.add(current);
  });
}

function describeGenerated(dto: Type, definitions: ReadonlyMap<string, ResolvedResource>, generated: Map<string, Type>): void {
  const shape = generatedDtoShape(dto)!;
  const definition = definitions.get(shape.resource);
  if (!definition) return;
  generated.set(dto.name, dto);
  for (const nested of shape.properties.values()) if (nested) describeGenerated(nested, definitions, generated);
  if (described.has(dto)) return;
  described.add(dto);
  const schema = shape.body === 'search' ? searchBodySchema(definition) : objectAt(documentSchema(definition, shape.body), shape.path);
  const properties = (schema?.properties ?? {}) as Record<string, OpenApiSchema>;
  const required = (schema?.required ?? []) as string[];
  for (const [key, nested] of shape.properties) {
    ApiProperty(propertyOptions(properties[key] ?? {}, required.includes(key), nested))(dto.prototype, key);
  }
}

/**
 * `ApiProperty()` options that give the property schema: `@nestjs/swagger` copies most keywords;
 * a nested class is a reference to its component schema, an array of them `isArray`.
 */
function propertyOptions(schema: OpenApiSchema, required: boolean, nested: Type | undefined): ApiPropertyOptions {
  const { type, items, ...rest } = schema;
  if (nested) {
    const { nullable, description, writeOnly } = rest;
    return { nullable, description, writeOnly, type: () => nested, isArray: type === 'array', required } as ApiPropertyOptions;
  }
  if (type === 'array') return { ...rest, type: 'array', items, required } as ApiPropertyOptions;
  if (type) return { ...rest, type, required } as ApiPropertyOptions;
  // No type (a `oneOf`, or any JSON value): `@nestjs/swagger` leaves out the type of an `Array`
  // with a combinator, and `anyOf: [{}]` is any value, as the schema `{}` says.
  return { ...rest, type: Array, ...(rest.oneOf ? {} : { anyOf: [{}] }), required } as ApiPropertyOptions;
}

/**
 * Puts the properties of `parent` (a generated class, or one that extends it) on `dto` where `dto`
 * has property metadata of its own, each under what `dto` says of it.
 */
function inheritProperties(dto: Type, parent: Type): void {
  const own = Reflect.getOwnMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, dto.prototype) as string[] | undefined;
  if (!own) return;
  const inherited = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, parent.prototype) ?? []) as string[];
  for (const key of inherited.map((name) => name.slice(1))) {
    const options = {
      ...Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, parent.prototype, key),
      ...Reflect.getOwnMetadata(DECORATORS.API_MODEL_PROPERTIES, dto.prototype, key),
    };
    ApiProperty(options)(dto.prototype, key);
  }
}
