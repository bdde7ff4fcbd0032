import type { Type } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction, type RouteActionName, type RouteActionRow } from '../metadata/route-actions.js';
import { routeNames } from '../factories/route-table.factory.js';
import type { ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { QUERY_STRING_OPERATORS } from '../query/query-operators.js';
import { documentSchema, envelopeSchema, OBJECT_ID_SCHEMA, sortExample, type OpenApiSchema } from './openapi-schemas.js';

/** Names of the component schemas the generated routes refer to. */
export const componentName = {
  document: (name: string) => name,
  list: (name: string) => `${name}List`,
  error: 'ModelRoutesError',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const decorated = new WeakSet<Function>();

/**
 * Puts OpenAPI metadata on every generated handler, with `@nestjs/swagger`'s public decorators:
 * tags, operationIds, parameters, bodies and responses. Custom routes keep their own decorators.
 * Done once per handler, however often it is called.
 */
export function decorateRoutes(registration: ModelRoutesRegistration): void {
  const byName = new Map(registration.definitions.map((definition) => [definition.name, definition]));
  for (const route of registration.routes) {
    if (route.action === 'custom') continue;
    const controller = registration.controllers.get(route.controller);
    const handler = controller?.prototype[route.handler] as Function | undefined;
    if (!controller || !handler || decorated.has(handler)) continue;
    decorated.add(handler);
    const owner = byName.get(route.reference?.source ?? route.resource)!;
    if (!decorated.has(controller)) {
      // One tag per resource, on the class: the user's own routes of an extended controller get it too.
      decorated.add(controller);
      ApiTags(owner.name)(controller);
    }
    for (const decorate of decoratorsOf(route, owner, byName, bodyDto(controller, route))) {
      decorate(controller.prototype, route.handler, Object.getOwnPropertyDescriptor(controller.prototype, route.handler)!);
    }
  }
}

type Definitions = ReadonlyMap<string, ResourceDefinition>;

/**
 * The DTO class of a generated route's body (`CompanyCreateDto`, `CompanyOwnerSearchDto`, or yours):
 * the type its handler declares for its body parameter, as `@nestjs/swagger` and pipes read it.
 */
export function bodyDto(controller: Type | undefined, route: RouteDefinition): Type | undefined {
  if (!controller || route.action === 'custom') return undefined;
  const index = routeAction(route.action as RouteActionName).params.indexOf('body');
  const types = Reflect.getMetadata('design:paramtypes', controller.prototype, route.handler) as Type[] | undefined;
  return index >= 0 && types?.[index] !== Object ? types?.[index] : undefined;
}

function decoratorsOf(route: RouteDefinition, owner: ResourceDefinition, byName: Definitions, dto: Type | undefined): MethodDecorator[] {
  const row = routeAction(route.action as RouteActionName);
  const names = namesOf(route, owner, byName);
  return [
    ApiOperation({ operationId: operationId(route, owner), summary: row.summary(names), description: row.description(names) }),
    ...pathParameters(route, byName),
    ...(row.searchQuery && byName.has(route.resource) ? queryParameters(byName.get(route.resource)!) : []),
    ...(row.body && dto ? [ApiBody({ required: row.body !== 'search', type: dto })] : []),
    ...conditionalHeaders(row, owner),
    ...responses(row, route, owner, byName),
  ];
}

/** The names the texts of a route are made of. */
function namesOf(route: RouteDefinition, owner: ResourceDefinition, byName: Definitions) {
  const reference = route.reference;
  return routeNames(owner, reference && { field: reference.field, target: byName.get(reference.target) ?? reference.target });
}

/** `company_findOne`, `company_searchPost`, `company_owner_reverse`: the route's one name, under its resource (and field). */
export function operationId(route: RouteDefinition, owner: Pick<ResourceDefinition, 'path'>): string {
  const base = owner.path.replace(/[^a-zA-Z0-9]+/g, '_');
  return route.reference ? `${base}_${route.reference.field}_${route.action}` : `${base}_${route.action}`;
}

function pathParameters(route: RouteDefinition, byName: Definitions): MethodDecorator[] {
  const parameters: MethodDecorator[] = [];
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    const definition = [...byName.values()].find((candidate) => candidate.idParam === name);
    const idField = definition?.idField ?? '_id';
    const schema = idField === '_id' ? OBJECT_ID_SCHEMA : ((documentSchema(definition!, 'read').properties as Record<string, OpenApiSchema>)[idField] ?? { type: 'string' });
    parameters.push(ApiParam({ name, required: true, schema: schema as never, description: `The ${idField} of a ${definition?.name ?? 'document'}` }));
  }
  return parameters;
}

function queryParameters(definition: ResourceDefinition): MethodDecorator[] {
  const { search } = definition;
  const fields = documentSchema(definition, 'read').properties as Record<string, OpenApiSchema>;
  const scalar = Object.entries(fields).filter(([, schema]) => ['string', 'number', 'boolean'].includes(schema.type as string));
  return [
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, default: search.defaultLimit }, description: `At most ${search.maxLimit}; larger values are clamped.` }),
    ApiQuery({ name: 'skip', required: false, schema: { type: 'integer', minimum: 0, maximum: search.maxSkip, default: 0 } }),
    ApiQuery({ name: 'sort', required: false, schema: { type: 'string' }, description: `Fields, comma-separated, \`-\` for descending: \`${sortExample(definition, ',')}\`.` }),
    ApiQuery({ name: 'select', required: false, schema: { type: 'string' }, description: 'Fields to return, comma-separated; `_id` always comes back.' }),
    ...scalar.map(([name, schema]) =>
      ApiQuery({
        name,
        required: false,
        schema: schema as never,
        description: `Equality filter. Also \`${name}[op]=value\` with op in ${[...QUERY_STRING_OPERATORS].map((operator) => operator.slice(1)).join(', ')}.`,
      }),
    ),
  ];
}

/** Errors any route may answer, beside those of its row. */
const COMMON_ERRORS: ReadonlyArray<readonly [number, string]> = [[422, 'MR_QUERY_TIMEOUT'], [500, 'MR_INTERNAL'], [503, 'MR_DATABASE_UNAVAILABLE']];

const ETAG_HEADER = { ETag: { description: "The document's entity tag: send it in If-Match to write only this version, or in If-None-Match to be answered 304 while it is current.", schema: { type: 'string' } } };

/** `If-None-Match` on a route that reads a document, `If-Match` on one that writes it (required with `requireIfMatch`). */
function conditionalHeaders(row: RouteActionRow, owner: ResourceDefinition): MethodDecorator[] {
  if (row.conditional === 'read') {
    return [ApiHeader({ name: 'If-None-Match', required: false, description: 'ETags (or `*`): 304 Not Modified, without a body, when the document still has one of them.' })];
  }
  if (row.conditional !== 'write') return [];
  return [
    ApiHeader({
      name: 'If-Match',
      required: owner.requireIfMatch,
      description: `ETags (or \`*\`): write only while the document still has one of them, else 412 MR_PRECONDITION_FAILED and nothing written.${owner.requireIfMatch ? ' Required: 428 MR_PRECONDITION_REQUIRED without it.' : ''}`,
    }),
  ];
}

/** The statuses of conditional requests a route answers, beside those of its row. */
function conditionalStatuses(row: RouteActionRow, owner: ResourceDefinition): MethodDecorator[] {
  if (row.conditional === 'read') return [ApiResponse({ status: 304, description: 'Not Modified: the document still has an ETag of If-None-Match (no body)', headers: ETAG_HEADER })];
  if (row.conditional !== 'write') return [];
  const error = ref(componentName.error) as never;
  return [
    ApiResponse({ status: 412, description: 'Error; code: MR_PRECONDITION_FAILED (ETag: the current one)', schema: error, headers: ETAG_HEADER }),
    ...(owner.requireIfMatch ? [ApiResponse({ status: 428, description: 'Error; code: MR_PRECONDITION_REQUIRED', schema: error })] : []),
  ];
}

function responses(row: RouteActionRow, route: RouteDefinition, owner: ResourceDefinition, byName: Definitions): MethodDecorator[] {
  const known = byName.has(route.resource);
  const document = known ? ref(componentName.document(route.resource)) : { type: 'object' };
  const list = route.action === 'list'
    ? envelopeSchema(document, { missing: true })
    : known ? ref(componentName.list(route.resource)) : envelopeSchema(document);
  const schema = row.answers.shape === 'list' ? list : document;
  const state = row.status === 201 ? 'created ' : row.answers.of === 'target' ? 'referenced ' : route.method === 'GET' ? '' : route.method === 'DELETE' ? 'deleted ' : 'updated ';
  const description = row.answers.shape === 'list' ? 'The envelope of the results' : `The ${state}${route.resource}`;
  return [
    ApiResponse({
      status: row.status,
      description: row.location ? `${description}; its URL is in the Location header` : description,
      schema: schema as never,
      ...headers(row),
    }),
    ...conditionalStatuses(row, owner),
    ...[...row.errors, ...COMMON_ERRORS].map(([status, codes]) => ApiResponse({ status, description: `Error; code: ${codes}`, schema: ref(componentName.error) as never })),
  ];
}

/** The headers of a success: `Location` of a create, `ETag` of a document (a delete's is gone). */
function headers(row: RouteActionRow): { headers?: Record<string, object> } {
  const headers: Record<string, object> = {
    ...(row.location && { Location: { description: 'URL of the created document', schema: { type: 'string' } } }),
    ...(row.conditional && row.method !== 'DELETE' && ETAG_HEADER),
  };
  return Object.keys(headers).length ? { headers } : {};
}

export type ControllerMap = ReadonlyMap<string, Type>;
