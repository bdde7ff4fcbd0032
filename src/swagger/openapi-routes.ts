import type { Type } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteAction, RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { ModelRoutesMetadata } from '../model-routes.module.js';
import { QUERY_STRING_OPERATORS } from '../query/query-operators.js';
import { article } from '../utils/naming.util.js';
import { documentSchema, envelopeSchema, OBJECT_ID_SCHEMA, type OpenApiSchema } from './openapi-schemas.js';

/** Names of the component schemas the generated routes refer to. */
export const componentName = {
  document: (name: string) => name,
  create: (name: string) => `${name}Create`,
  update: (name: string) => `${name}Update`,
  list: (name: string) => `${name}List`,
  searchBody: (name: string) => `${name}SearchBody`,
  error: 'ModelRoutesError',
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const decorated = new WeakSet<Function>();

/**
 * Puts OpenAPI metadata on every generated handler, with `@nestjs/swagger`'s public decorators:
 * tags, operationIds, parameters, bodies and responses. Custom routes keep their own decorators.
 * Done once per handler, however often it is called.
 */
export function decorateRoutes(metadata: ModelRoutesMetadata): void {
  const byName = new Map(metadata.definitions.map((definition) => [definition.name, definition]));
  for (const route of metadata.table) {
    if (route.action === 'custom') continue;
    const controller = metadata.controllers.get(route.controller);
    const handler = controller?.prototype[route.handler] as Function | undefined;
    if (!controller || !handler || decorated.has(handler)) continue;
    decorated.add(handler);
    const owner = byName.get(route.reference?.source ?? route.resource)!;
    if (!decorated.has(controller)) {
      // One tag per resource, on the class: the user's own routes of an extended controller get it too.
      decorated.add(controller);
      ApiTags(owner.name)(controller);
    }
    for (const decorate of decoratorsOf(route, owner, byName)) {
      decorate(controller.prototype, route.handler, Object.getOwnPropertyDescriptor(controller.prototype, route.handler)!);
    }
  }
}

type Definitions = ReadonlyMap<string, ResourceDefinition>;

function decoratorsOf(route: RouteDefinition, owner: ResourceDefinition, byName: Definitions): MethodDecorator[] {
  const { summary, description } = texts(route, byName);
  return [
    ApiOperation({ operationId: operationId(route, owner), summary, description }),
    ...pathParameters(route, byName),
    ...((route.action === 'search' || route.action === 'referenceSearch' || route.action === 'referenceList') && byName.has(route.resource)
      ? queryParameters(byName.get(route.resource)!)
      : []),
    ...body(route),
    ...responses(route, byName),
  ];
}

/** `company_get`, `company_search_post`, `company_owner_reverse_search`: stable, unique, readable. */
export function operationId(route: RouteDefinition, owner: Pick<ResourceDefinition, 'path'>): string {
  const base = owner.path.replace(/[^a-zA-Z0-9]+/g, '_');
  const verbs: Record<Exclude<RouteAction, 'custom'>, string> = {
    findOne: 'get',
    create: 'create',
    update: 'update',
    patch: 'patch',
    delete: 'delete',
    search: 'search',
    searchPost: 'search_post',
    referenceFind: 'get',
    referenceSearch: 'reverse_search',
    referenceSearchPost: 'reverse_search_post',
    referenceList: 'get',
    referenceAdd: 'add',
    referenceRemove: 'remove',
  };
  const verb = verbs[route.action as Exclude<RouteAction, 'custom'>];
  return route.reference ? `${base}_${route.reference.field}_${verb}` : `${base}_${verb}`;
}

function texts(route: RouteDefinition, byName: Definitions): { summary: string; description: string } {
  const name = route.resource;
  const reference = route.reference;
  const source = reference && byName.get(reference.source);
  switch (route.action) {
    case 'findOne':
      return { summary: `Get one ${name}`, description: `The ${name} whose identifier is in the path.` };
    case 'create':
      return { summary: `Create ${article(name)} ${name}`, description: `Creates ${article(name)} ${name}; answers the document and its URL in Location. Unknown fields are refused; references must name existing documents.` };
    case 'update':
    case 'patch':
      return {
        summary: `Modify ${article(name)} ${name}`,
        description: 'Changes only the fields sent, at every depth: a nested object is merged, null removes a field, arrays are replaced whole. Their validators run.',
      };
    case 'delete':
      return { summary: `Delete a ${name}`, description: `Deletes the ${name} and answers it.` };
    case 'search':
      return { summary: `Search ${name} documents`, description: 'Query-string search: field=value, field[op]=value, sort, select, limit, skip.' };
    case 'searchPost':
      return { summary: `Search ${name} documents (flexible)`, description: 'A MongoDB filter over schema fields, with an operator allowlist.' };
    case 'referenceList':
      return {
        summary: `The ${reference!.field} of a ${reference!.source}`,
        description: `The envelope of the ${reference!.target} documents whose identifiers ${reference!.source}.${reference!.field} holds.`,
      };
    case 'referenceAdd':
      return {
        summary: `Add a ${reference!.target} to the ${reference!.field} of a ${reference!.source}`,
        description: `Adds the identifier once (no duplicates); answers the updated ${reference!.source}.`,
      };
    case 'referenceRemove':
      return {
        summary: `Remove a ${reference!.target} from the ${reference!.field} of a ${reference!.source}`,
        description: `Removes the identifier; answers the updated ${reference!.source}.`,
      };
    case 'referenceFind':
      return {
        summary: `Get the ${reference!.field} of a ${reference!.source}`,
        description: `The ${reference!.target} that ${reference!.source}.${reference!.field} points to.`,
      };
    default:
      return {
        summary: `${source?.name ?? reference!.source} documents whose ${reference!.field} is this ${reference!.target}`,
        description: `The query, if any, is ANDed with ${reference!.field} = the identifier in the path.`,
      };
  }
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

function body(route: RouteDefinition): MethodDecorator[] {
  switch (route.action) {
    case 'create':
      return [ApiBody({ required: true, schema: ref(componentName.create(route.resource)) })];
    case 'update':
    case 'patch':
      return [ApiBody({ required: true, schema: ref(componentName.update(route.resource)) })];
    case 'searchPost':
    case 'referenceSearchPost':
      return [ApiBody({ required: false, schema: ref(componentName.searchBody(route.resource)) })];
    default:
      return [];
  }
}

const WRITE_ERRORS = 'MR_INVALID_BODY, MR_INVALID_JSON, MR_VALIDATION_FAILED, MR_REFERENCE_NOT_FOUND';
const SEARCH_ERRORS = 'MR_INVALID_QUERY, MR_INVALID_VALUE, MR_UNSUPPORTED_QUERY';
const BODY_LIMITS: Array<[number, string]> = [[413, 'MR_PAYLOAD_TOO_LARGE'], [415, 'MR_UNSUPPORTED_MEDIA_TYPE']];

const ERRORS_OF: Record<Exclude<RouteAction, 'custom'>, Array<[number, string]>> = {
  findOne: [[400, 'MR_INVALID_ID'], [404, 'MR_NOT_FOUND']],
  create: [[400, WRITE_ERRORS], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
  update: [[400, `MR_INVALID_ID, ${WRITE_ERRORS}`], [404, 'MR_NOT_FOUND'], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
  patch: [[400, `MR_INVALID_ID, ${WRITE_ERRORS}`], [404, 'MR_NOT_FOUND'], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
  delete: [[400, 'MR_INVALID_ID'], [404, 'MR_NOT_FOUND']],
  search: [[400, SEARCH_ERRORS]],
  searchPost: [[400, `${SEARCH_ERRORS}, MR_INVALID_BODY, MR_INVALID_JSON`], ...BODY_LIMITS],
  referenceFind: [[400, 'MR_INVALID_ID'], [404, 'MR_NOT_FOUND, MR_REFERENCE_UNSET, MR_REFERENCE_BROKEN']],
  referenceSearch: [[400, `MR_INVALID_ID, ${SEARCH_ERRORS}`], [404, 'MR_NOT_FOUND']],
  referenceSearchPost: [[400, `MR_INVALID_ID, ${SEARCH_ERRORS}, MR_INVALID_BODY, MR_INVALID_JSON`], [404, 'MR_NOT_FOUND'], ...BODY_LIMITS],
  referenceList: [[400, `MR_INVALID_ID, ${SEARCH_ERRORS}`], [404, 'MR_NOT_FOUND']],
  referenceAdd: [[400, 'MR_INVALID_ID'], [404, 'MR_NOT_FOUND']],
  referenceRemove: [[400, 'MR_INVALID_ID'], [404, 'MR_NOT_FOUND']],
};

function responses(route: RouteDefinition, byName: Definitions): MethodDecorator[] {
  const action = route.action as Exclude<RouteAction, 'custom'>;
  const target = byName.has(route.resource) ? ref(componentName.document(route.resource)) : { type: 'object' };
  const success: Record<Exclude<RouteAction, 'custom'>, [number, string, object]> = {
    findOne: [200, `The ${route.resource}`, target],
    create: [201, `The created ${route.resource}; its URL is in the Location header`, target],
    update: [200, `The updated ${route.resource}`, target],
    patch: [200, `The updated ${route.resource}`, target],
    delete: [200, `The deleted ${route.resource}`, target],
    search: [200, 'The envelope of the results', ref(componentName.list(route.resource))],
    searchPost: [200, 'The envelope of the results', ref(componentName.list(route.resource))],
    referenceFind: [200, `The referenced ${route.resource}`, target],
    referenceSearch: [200, 'The envelope of the results', ref(componentName.list(route.resource))],
    referenceSearchPost: [200, 'The envelope of the results', ref(componentName.list(route.resource))],
    referenceList: [
      200,
      'The envelope of the referenced documents; status.missing lists the identifiers the array holds that name no document (deleted)',
      envelopeSchema(byName.has(route.resource) ? ref(componentName.document(route.resource)) : { type: 'object' }, { missing: true }),
    ],
    referenceAdd: [200, `The updated ${route.resource}`, target],
    referenceRemove: [200, `The updated ${route.resource}`, target],
  };
  const [status, description, schema] = success[action];
  const errors: Array<[number, string]> = [
    ...ERRORS_OF[action],
    [422, 'MR_QUERY_TIMEOUT'],
    [500, 'MR_INTERNAL'],
    [503, 'MR_DATABASE_UNAVAILABLE'],
  ];
  return [
    ApiResponse({
      status,
      description,
      schema: schema as never,
      ...(action === 'create' ? { headers: { Location: { description: 'URL of the created document', schema: { type: 'string' } } } } : {}),
    }),
    ...errors.map(([code, codes]) => ApiResponse({ status: code, description: `Error; code: ${codes}`, schema: ref(componentName.error) as never })),
  ];
}

export type ControllerMap = ReadonlyMap<string, Type>;

/** A sort of the resource's own fields, for the docs: `-createdAt,title`, or `-_id` when it has none. */
export function sortExample(definition: Pick<ResourceDefinition, 'schema' | 'fields'>, separator: string): string {
  const fields = Object.entries(documentSchema(definition, 'read').properties as Record<string, OpenApiSchema>)
    .filter(([name, schema]) => name !== '_id' && ['string', 'number'].includes(schema.type as string))
    .map(([name]) => name);
  return fields.length ? [`-${fields[0]}`, ...fields.slice(1, 2)].join(separator) : '-_id';
}

