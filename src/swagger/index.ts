import type { INestApplication, Type } from '@nestjs/common';
import { ApplicationConfig, ModulesContainer } from '@nestjs/core';
import { SwaggerModule, type OpenAPIObject, type SwaggerDocumentOptions } from '@nestjs/swagger';
import { ModelRoutesExplorer, type ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { healthRegistrations } from '../health/health.registration.js';
import { describeDto } from './openapi-dtos.js';
import { decorateHealthRoutes } from './openapi-health.js';
import { bodyDto, componentName, decorateRoutes } from './openapi-routes.js';
import { documentSchema, envelopeSchema, ERROR_SCHEMA, expandableSchema, selectableSchema, type OpenApiSchema } from './openapi-schemas.js';
import { documentSettings } from './openapi-settings.js';
import { subTypeDefinition, subTypesUnion, withSubTypeKey } from './openapi-discriminators.js';
import { versionOperationIds } from './openapi-versions.js';
import { servingOf } from '../versioning/served-routes.js';

export { operationId } from './openapi-routes.js';
export { documentSchema, envelopeSchema, ERROR_SCHEMA, type OpenApiSchema };

/**
 * The OpenAPI document of an app, with every generated route documented as it behaves: its
 * parameters, bodies, responses (documents, envelopes, errors) and a stable operationId; and the
 * routes of `ModelRoutesHealthModule`, if the app has them. Your own routes are documented by your
 * own `@nestjs/swagger` decorators, side by side. With `app.enableVersioning()`, each generated
 * operationId ends with the route's version(s): `company_findOne_v1`.
 *
 * @example
 * ```ts
 * const document = createModelRoutesDocument(app, new DocumentBuilder().setTitle('My API').build());
 * SwaggerModule.setup('docs', app, document); // UI at /docs, JSON at /docs-json
 * ```
 *
 * @publicApi
 */
export function createModelRoutesDocument(app: INestApplication, config: Omit<OpenAPIObject, 'paths'>, options?: SwaggerDocumentOptions): OpenAPIObject {
  const registrations = app.get(ModelRoutesExplorer).registrations();
  const generated = new Map<string, Type>();
  for (const registration of registrations) {
    decorateRoutes(registration);
    describeBodies(registration, generated);
  }
  for (const registration of healthRegistrations(app.get(ModulesContainer))) decorateHealthRoutes(registration);
  // Tags come from the resources (one each), not from controller class names.
  const document = SwaggerModule.createDocument(app, config, { autoTagControllers: false, ...options });
  versionOperationIds(document, registrations, servingOf(app.get(ApplicationConfig, { strict: false })));
  documentSettings(document, registrations);
  const schemas = { ...document.components?.schemas, ...componentSchemas(registrations.flatMap((registration) => registration.definitions)) } as Record<
    string,
    OpenApiSchema
  >;
  // A class-level keyword ApiProperty() cannot give: the generated DTOs refuse unknown properties.
  for (const name of generated.keys()) if (schemas[name]) schemas[name] = { ...schemas[name], additionalProperties: false };
  for (const { discriminator } of registrations.flatMap((registration) => registration.definitions)) {
    for (const type of discriminator?.types ?? []) withSubTypeKey(schemas[type.dtos.create.name], discriminator!.key, type.value);
  }
  document.components = { ...document.components, schemas: schemas as NonNullable<NonNullable<OpenAPIObject['components']>['schemas']> };
  return document;
}

/** Gives the DTO class of each generated route's body its property metadata (see `describeDto`). */
function describeBodies(registration: ModelRoutesRegistration, generated: Map<string, Type>): void {
  const byName = new Map(registration.definitions.map((definition) => [definition.name, definition]));
  for (const definition of registration.definitions) {
    for (const type of definition.discriminator?.types ?? []) byName.set(type.name, subTypeDefinition(definition, type));
  }
  for (const route of registration.routes) {
    const dto = bodyDto(registration.controllers.get(route.controller), route);
    if (dto) describeDto(dto, byName, generated);
  }
  // The sub-types' create bodies, which the create's `oneOf` names.
  for (const definition of registration.definitions) {
    for (const type of definition.discriminator?.types ?? []) describeDto(type.dtos.create, byName, generated);
  }
}

/**
 * The component schemas the generated routes' responses refer to: per resource, and the error shape.
 *
 * @publicApi
 */
export function componentSchemas(definitions: ModelRoutesRegistration['definitions']): Record<string, OpenApiSchema> {
  const schemas: Record<string, OpenApiSchema> = { [componentName.error]: ERROR_SCHEMA };
  const documented = new Set(definitions.map((definition) => definition.name));
  const expandable = (definition: ModelRoutesRegistration['definitions'][number]) =>
    expandableSchema(documentSchema(definition, 'read'), definition, (target) =>
      documented.has(target) ? { $ref: `#/components/schemas/${componentName.document(target)}` } : undefined,
    );
  for (const definition of definitions) {
    const { name } = definition;
    const document = expandable(definition);
    schemas[componentName.document(name)] = document;
    schemas[componentName.selected(name)] = selectableSchema(document);
    if (definition.discriminator) {
      // A document is one of the sub-types, by its key; `select` may leave the key out, so a selected one is not.
      for (const type of definition.discriminator.types) {
        const own = expandable(subTypeDefinition(definition, type));
        withSubTypeKey(own, definition.discriminator.key, type.value);
        schemas[componentName.document(type.name)] = own;
      }
      schemas[componentName.document(name)] = subTypesUnion(definition, (type) => componentName.document(type.name));
    }
    schemas[componentName.list(name)] = envelopeSchema({ $ref: `#/components/schemas/${componentName.document(name)}` });
    schemas[componentName.selectedList(name)] = envelopeSchema({ $ref: `#/components/schemas/${componentName.selected(name)}` });
  }
  return schemas;
}
