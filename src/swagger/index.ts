import type { INestApplication } from '@nestjs/common';
import { SwaggerModule, type OpenAPIObject, type SwaggerDocumentOptions } from '@nestjs/swagger';
import { QUERY_OPERATORS } from '../query/query-operators.js';
import { ModelRoutesExplorer, type ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { componentName, decorateRoutes, sortExample } from './openapi-routes.js';
import { documentSchema, envelopeSchema, ERROR_SCHEMA, type OpenApiSchema } from './openapi-schemas.js';

export { operationId } from './openapi-routes.js';
export { documentSchema, envelopeSchema, ERROR_SCHEMA, type OpenApiSchema };

/**
 * The OpenAPI document of an app, with every generated route documented as it behaves: its
 * parameters, bodies, responses (documents, envelopes, errors) and a stable operationId. Your own
 * routes are documented by your own `@nestjs/swagger` decorators, side by side.
 *
 * @example
 * ```ts
 * const document = createModelRoutesDocument(app, new DocumentBuilder().setTitle('My API').build());
 * SwaggerModule.setup('docs', app, document); // UI at /docs, JSON at /docs-json
 * ```
 */
export function createModelRoutesDocument(
  app: INestApplication,
  config: Omit<OpenAPIObject, 'paths'>,
  options?: SwaggerDocumentOptions,
): OpenAPIObject {
  const registrations = app.get(ModelRoutesExplorer).registrations();
  registrations.forEach(decorateRoutes);
  // Tags come from the resources (one each), not from controller class names.
  const document = SwaggerModule.createDocument(app, config, { autoTagControllers: false, ...options });
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...(componentSchemas(registrations.flatMap((registration) => registration.definitions)) as NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>) },
  };
  return document;
}

/** The component schemas the generated routes refer to: per resource, and the error shape. */
export function componentSchemas(definitions: ModelRoutesRegistration['definitions']): Record<string, OpenApiSchema> {
  const schemas: Record<string, OpenApiSchema> = { [componentName.error]: ERROR_SCHEMA };
  for (const definition of definitions) {
    const { name, search } = definition;
    schemas[componentName.document(name)] = documentSchema(definition, 'read');
    schemas[componentName.create(name)] = documentSchema(definition, 'create');
    schemas[componentName.update(name)] = documentSchema(definition, 'update');
    schemas[componentName.list(name)] = envelopeSchema({ $ref: `#/components/schemas/${componentName.document(name)}` });
    schemas[componentName.searchBody(name)] = {
      type: 'object',
      additionalProperties: false,
      properties: {
        query: { type: 'object', additionalProperties: true, description: `A MongoDB filter over schema fields; operators: ${Object.keys(QUERY_OPERATORS).join(' ')}.` },
        // Defaults are described, not declared: generators make properties with a default required.
        limit: { type: 'integer', minimum: 1, description: `Default ${search.defaultLimit}; at most ${search.maxLimit}, larger values are clamped.` },
        skip: { type: 'integer', minimum: 0, maximum: search.maxSkip, description: 'Default 0.' },
        sort: {
          oneOf: [
            { type: 'object', additionalProperties: { enum: [1, -1, 'asc', 'desc', 'ascending', 'descending'] } },
            { type: 'string', description: `"${sortExample(definition, ' ')}"` },
          ],
        },
        select: { oneOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
      },
    };
  }
  return schemas;
}
