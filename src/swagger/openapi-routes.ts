import type { Type } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { ResolvedResource, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { GeneratedRouteDefinition, RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { FileFieldDefinition, ResolvedVariants } from '../files/file-options.js';
import { routeAction, type RouteActionRow, type RouteNames } from '../metadata/route-actions.js';
import { elementRouteNames, fileRouteNames, referenceTarget, routeNames } from '../routes/route-table.factory.js';
import type { ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import { QUERY_STRING_OPERATORS } from '../query/query-operators.js';
import { EXPORT_FORMATS, type ExportFormat } from '../export/export-formats.js';
import { IMPORT_REPORT_SCHEMA, importParameters, importRequestBody } from './openapi-import.js';
import { bulkResponses } from './openapi-bulk.js';
import { historyResponses, historyVersionParameter } from './openapi-history.js';
import { subTypesBody } from './openapi-discriminators.js';
import { AFTER_TEXT, documentSchema, envelopeSchema, OBJECT_ID_SCHEMA, objectAt, sortExample, type OpenApiSchema } from './openapi-schemas.js';

/** Names of the component schemas the generated routes refer to. */
export const componentName = {
  document: (name: string) => name,
  /** A page of whole documents: what a search answers without `select`. */
  list: (name: string) => `${name}List`,
  /** A document of a search's answer with `select`: any field may be absent, so none is required but `_id`. */
  selected: (name: string) => `${name}Selected`,
  /** A page of `<Name>Selected`: what a search answers with `select`. */
  selectedList: (name: string) => `${name}SelectedList`,
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

type Definitions = ReadonlyMap<string, ResolvedResource>;

/**
 * The DTO class of a generated route's body (`CompanyCreateDto`, `CompanyOwnerSearchDto`, or yours):
 * the type its handler declares for its body parameter, as `@nestjs/swagger` and pipes read it.
 */
export function bodyDto(controller: Type | undefined, route: RouteDefinition): Type | undefined {
  if (!controller || route.action === 'custom') return undefined;
  const index = routeAction(route.action).params.indexOf('body');
  const types = Reflect.getMetadata('design:paramtypes', controller.prototype, route.handler) as Type[] | undefined;
  return index >= 0 && types?.[index] !== Object ? types?.[index] : undefined;
}

function decoratorsOf(route: GeneratedRouteDefinition, owner: ResolvedResource, byName: Definitions, dto: Type | undefined): MethodDecorator[] {
  const row = routeAction(route.action);
  const names = namesOf(route, owner, byName);
  const file = route.file && owner.files.find((candidate) => candidate.field === route.file!.field);
  if (file) return fileDecorators(route, row, names, owner, file, byName);
  return [
    ApiOperation({
      operationId: operationId(route, owner),
      summary: row.summary(names),
      description: row.description(names),
      ...(row.answers.shape === 'report' && { requestBody: importRequestBody() }),
    } as never),
    ...pathParameters(route, byName, undefined, names.elementParam ? { name: names.elementParam, field: names.field! } : undefined),
    ...(row.searchQuery && byName.has(route.resource) ? queryParameters(byName.get(route.resource)!, row.answers.shape) : []),
    ...(row.body && dto ? (route.action === 'create' && subTypesBody(owner, dto)) || [ApiBody({ required: row.body !== 'search', type: dto })] : []),
    ...conditionalHeaders(row, owner),
    ...countHeaders(row, byName.get(route.resource)),
    ...(row.answers.shape === 'export'
      ? exportResponses(row, route, byName)
      : row.answers.shape === 'report'
        ? importResponses(row)
        : row.answers.shape === 'bulk'
          ? [...bulkResponses(route.method === 'DELETE' ? 'deleted' : 'updated'), ...errorResponses(row)]
          : row.answers.shape === 'history'
            ? [...historyResponses(byName.has(route.resource) ? ref(componentName.document(route.resource)) : { type: 'object' }), ...errorResponses(row)]
            : responses(row, route, owner, byName)),
    ...(route.action === 'revert' ? historyVersionParameter() : []),
  ];
}

/**
 * An export's `format` parameter and its answer in each format: CSV and NDJSON as text, JSON as an
 * array of the documents as a search selects them, XLSX as bytes; named by `Content-Disposition`.
 */
function exportResponses(row: RouteActionRow, route: RouteDefinition, byName: Definitions): MethodDecorator[] {
  const selected = byName.has(route.resource) ? ref(componentName.selected(route.resource)) : { type: 'object' };
  const text = { type: 'string' };
  const content = Object.fromEntries(
    (Object.keys(EXPORT_FORMATS) as ExportFormat[]).map((format) => [
      EXPORT_FORMATS[format].mediaType,
      { schema: format === 'json' ? { type: 'array', items: selected } : format === 'xlsx' ? BINARY : text },
    ]),
  );
  return [
    ApiQuery({
      name: 'format',
      required: false,
      schema: { type: 'string', enum: Object.keys(EXPORT_FORMATS), default: 'csv' },
      description: 'The format; without it, the media type of Accept that names one, else csv.',
    }),
    ApiResponse({
      status: 200,
      description: 'Every match, streamed in the format asked for',
      content,
      headers: { 'Content-Disposition': { description: 'attachment, with the file name (companies.csv)', schema: text } },
    } as never),
    ...errorResponses(row),
  ];
}

/** An import's parameters and its report. */
function importResponses(row: RouteActionRow): MethodDecorator[] {
  return [
    ...importParameters(),
    ApiResponse({ status: 200, description: 'The report: what became of each row', schema: IMPORT_REPORT_SCHEMA as never }),
    ...errorResponses(row),
  ];
}

const BINARY = { type: 'string', format: 'binary' };

/**
 * A file route's operation: an upload's body (multipart/form-data with a `file` part, or the raw
 * bytes of an accepted type), a download's binary answer with its headers, partial content and
 * the variant parameters of an image field.
 */
function fileDecorators(
  route: RouteDefinition,
  row: RouteActionRow,
  names: RouteNames,
  owner: ResolvedResource,
  file: FileFieldDefinition,
  byName: Definitions,
): MethodDecorator[] {
  const requestBody = row.upload && {
    required: true,
    content: {
      'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: BINARY } } },
      ...Object.fromEntries(file.accept.map((type) => [type, { schema: BINARY }])),
    },
  };
  const operation = ApiOperation({
    operationId: operationId(route, owner),
    summary: row.summary(names),
    description: `${row.description(names)} At most ${file.maxSize} bytes; accepted: ${file.accept.join(', ')}.`,
    ...(requestBody && { requestBody }),
  } as never);
  const parameters = pathParameters(route, byName, names.fileParam);
  if (row.answers.shape !== 'file') return [operation, ...parameters, ...conditionalHeaders(row, owner), ...responses(row, route, owner, byName)];
  const content = Object.fromEntries(file.accept.map((type) => [type, { schema: BINARY }]));
  const fileHeaders = {
    ETag: { description: "The SHA-256 of the file's content", schema: { type: 'string' } },
    'Last-Modified': { schema: { type: 'string' } },
    'Cache-Control': { schema: { type: 'string' } },
    'Content-Disposition': { schema: { type: 'string' } },
  };
  return [
    operation,
    ...parameters,
    ApiHeader({ name: 'Range', required: false, description: 'One range, `bytes=start-end`: 206 with that part.' }),
    ApiHeader({ name: 'If-None-Match', required: false, description: "The file's ETag: 304 while it is current." }),
    ...(file.variants ? variantParameters(file.variants) : []),
    ApiResponse({ status: 200, description: 'The file', content, headers: fileHeaders } as never),
    ApiResponse({ status: 206, description: 'The part of the file that Range asks for (Content-Range)', content, headers: fileHeaders } as never),
    ApiResponse({ status: 304, description: 'Not Modified: the file still has the ETag of If-None-Match (no body)' }),
    ...errorResponses(row),
  ];
}

function dimensionSchema(maximum: number, sizes: readonly number[] | undefined): never {
  return (sizes ? { type: 'integer', enum: sizes.filter((size) => size <= maximum) } : { type: 'integer', minimum: 1, maximum }) as never;
}

function variantParameters(variants: ResolvedVariants): MethodDecorator[] {
  return [
    ApiQuery({ name: 'w', required: false, schema: dimensionSchema(variants.maxWidth, variants.sizes), description: 'Width of a resized variant.' }),
    ApiQuery({ name: 'h', required: false, schema: dimensionSchema(variants.maxHeight, variants.sizes), description: 'Height of a resized variant.' }),
    ApiQuery({ name: 'fit', required: false, schema: { type: 'string', enum: ['cover', 'contain', 'fill', 'inside', 'outside'], default: 'cover' } }),
    ApiQuery({ name: 'format', required: false, schema: { type: 'string', enum: [...variants.formats] }, description: "Default: the image's own." }),
  ];
}

/** The names the texts of a route are made of. */
function namesOf(route: RouteDefinition, owner: ResourceDefinition, byName: Definitions): RouteNames {
  if (route.file)
    return fileRouteNames(
      owner,
      owner.files.find((file) => file.field === route.file!.field)!,
    );
  if (route.element) return elementRouteNames(owner, route.element.field);
  const reference = route.reference;
  return routeNames(owner, reference && { field: reference.field, target: referenceTarget(byName, reference.target) });
}

/**
 * `company_findOne`, `company_searchPost`, `company_owner_reverse`, `company_logo_upload`: the route's one name, under its resource (and field).
 *
 * @publicApi
 */
export function operationId(route: RouteDefinition, owner: Pick<ResourceDefinition, 'path'>): string {
  const base = owner.path.replace(/[^a-zA-Z0-9]+/g, '_');
  const field = route.reference?.field ?? route.file?.field ?? route.element?.field;
  return field ? `${base}_${field}_${route.action}` : `${base}_${route.action}`;
}

function pathParameters(route: RouteDefinition, byName: Definitions, fileParam?: string, element?: { name: string; field: string }): MethodDecorator[] {
  const parameters: MethodDecorator[] = [];
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    if (name === element?.name) {
      parameters.push(ApiParam({ name, required: true, schema: OBJECT_ID_SCHEMA as never, description: `The _id of an element of ${element.field}` }));
      continue;
    }
    if (name === fileParam) {
      parameters.push(ApiParam({ name, required: true, schema: OBJECT_ID_SCHEMA as never, description: 'The _id of a file of the gallery' }));
      continue;
    }
    const definition = [...byName.values()].find((candidate) => candidate.idParam === name);
    const idField = definition?.idField ?? '_id';
    const schema =
      idField === '_id' ? OBJECT_ID_SCHEMA : ((documentSchema(definition!, 'read').properties as Record<string, OpenApiSchema>)[idField] ?? { type: 'string' });
    parameters.push(ApiParam({ name, required: true, schema: schema as never, description: `The ${idField} of a ${definition?.name ?? 'document'}` }));
  }
  return parameters;
}

/** The query-string parameters of a route that takes a search (`shape`: what it answers): a bulk change's are its conditions only. */
function queryParameters(definition: ResolvedResource, shape: RouteActionRow['answers']['shape']): MethodDecorator[] {
  const { search } = definition;
  const exporting = shape === 'export';
  // An export's `limit` has no default (every match) and its own bound; its `format` is no field's filter.
  const limit = exporting
    ? ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: search.exportMaxRows }, description: exportLimitText(search) })
    : ApiQuery({
        name: 'limit',
        required: false,
        schema: { type: 'integer', minimum: 1, default: search.defaultLimit },
        description: limitParameterText(search),
      });
  const fields = documentSchema(definition, 'read').properties as Record<string, OpenApiSchema>;
  // An array of scalars is filtered by one element's value (`?tags=vip` matches the arrays that hold it).
  const scalar = Object.entries(fields)
    .map(([name, schema]): [string, OpenApiSchema] => [name, schema.type === 'array' ? { ...(schema.items as OpenApiSchema) } : schema])
    .filter(([name, schema]) => ['string', 'number', 'integer', 'boolean'].includes(schema.type as string) && !(exporting && name === 'format'));
  const conditions = scalar.map(([name, schema]) =>
    ApiQuery({
      name,
      required: false,
      schema: schema as never,
      description: `Equality filter. Also \`${name}[op]=value\` with op in ${[...QUERY_STRING_OPERATORS].map((operator) => operator.slice(1)).join(', ')}.`,
    }),
  );
  if (shape === 'bulk') return conditions;
  return [
    limit,
    ApiQuery({ name: 'skip', required: false, schema: { type: 'integer', minimum: 0, maximum: search.maxSkip, default: 0 } }),
    ApiQuery({
      name: 'sort',
      required: false,
      schema: { type: 'string' },
      description: `Fields, comma-separated, \`-\` for descending: \`${sortExample(definition, ',')}\`.`,
    }),
    ApiQuery({ name: 'select', required: false, schema: { type: 'string' }, description: 'Fields to return, comma-separated; `_id` always comes back.' }),
    ApiQuery({ name: 'after', required: false, schema: { type: 'string' }, description: AFTER_TEXT }),
    ...conditions,
  ];
}

/** What an export's `limit` query parameter says of the export's bound. */
export function exportLimitText(search: Pick<ResolvedSearchOptions, 'exportMaxRows'>): string {
  return (
    `The first matches only; without it, every match: more than ${search.exportMaxRows} is a 400 MR_EXPORT_TOO_LARGE (or an aborted transfer past the ` +
    `first page). Larger values are clamped.`
  );
}

/** What the `limit` query parameter says of the search settings. */
export function limitParameterText(search: Pick<ResolvedSearchOptions, 'maxLimit'>): string {
  return `At most ${search.maxLimit}; larger values are clamped.`;
}

/** What the `If-Match` header says, required or not. */
export function ifMatchText(required: boolean): string {
  return (
    `ETags (or \`*\`): write only while the document still has one of them, else 412 MR_PRECONDITION_FAILED and nothing ` +
    `written.${required ? ' Required: 428 MR_PRECONDITION_REQUIRED without it.' : ''}`
  );
}

/** The description of a 428 answer. */
export const PRECONDITION_REQUIRED_TEXT = 'Error; code: MR_PRECONDITION_REQUIRED';

/**
 * Errors any route may answer, beside those of its row; a route under the admission
 * limit (every one but an upload's) may also be shed with 503 `MR_OVERLOADED`.
 */
const COMMON_ERRORS: ReadonlyArray<readonly [number, string]> = [
  [422, 'MR_QUERY_TIMEOUT'],
  [500, 'MR_INTERNAL'],
  [503, 'MR_DATABASE_UNAVAILABLE'],
];
const OVERLOADED = 'MR_OVERLOADED';
const RETRY_AFTER_HEADER = {
  'Retry-After': { description: 'Seconds to wait before sending the request again (503 MR_OVERLOADED).', schema: { type: 'integer' } },
};

const ETAG_HEADER = {
  ETag: {
    description: "The document's entity tag: send it in If-Match to write only this version, or in If-None-Match to be answered 304 while it is current.",
    schema: { type: 'string' },
  },
};

/** `If-None-Match` on a route that reads a document, `If-Match` (required with `requireIfMatch`) and `If-None-Match` on one that writes it. */
function conditionalHeaders(row: RouteActionRow, owner: ResolvedResource): MethodDecorator[] {
  if (row.conditional === 'read') {
    return [
      ApiHeader({
        name: 'If-None-Match',
        required: false,
        description: 'ETags (or `*`): 304 Not Modified, without a body, when the document still has one of them.',
      }),
    ];
  }
  if (row.conditional !== 'write') return [];
  return [
    ApiHeader({
      name: 'If-Match',
      required: owner.requireIfMatch,
      description: ifMatchText(owner.requireIfMatch),
    }),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description:
        'ETags (or `*`, any version): write only while the document has none of them (weak comparison), else 412 MR_PRECONDITION_FAILED and nothing written.',
    }),
  ];
}

/** Whether a route's row searches (a query string or a search body): it takes `Prefer: count=`. */
/** A route that counts its matches: a search, not an export nor a bulk change. */
function searches(row: RouteActionRow): boolean {
  return (row.searchQuery === true || row.body === 'search') && row.answers.shape !== 'export' && row.answers.shape !== 'bulk';
}

/** What the `Prefer` header of a search route says, with the resource's default count. */
export function preferCountText(search: Pick<ResolvedSearchOptions, 'count' | 'estimateLimit'>): string {
  return (
    `count=exact | estimated (or planned) | none: how status.match_count is counted (default here: ${search.count}); status.counted says which it is. ` +
    (`estimated reads the collection's metadata for an unfiltered search and counts at most ${search.estimateLimit} matches of a filtered one; none leaves ` +
      `match_count out. `) +
    'Another count is a 400 MR_INVALID_QUERY; other preferences are ignored.'
  );
}

/** `Prefer: count=` on a search route. */
function countHeaders(row: RouteActionRow, answered: ResolvedResource | undefined): MethodDecorator[] {
  if (!searches(row) || !answered) return [];
  return [ApiHeader({ name: 'Prefer', required: false, description: preferCountText(answered.search) })];
}

const PREFERENCE_APPLIED_HEADER = {
  'Preference-Applied': { description: 'count=<the count given>, when the request sent Prefer: count=', schema: { type: 'string' } },
};

/** The statuses of conditional requests a route answers, beside those of its row. */
function conditionalStatuses(row: RouteActionRow, owner: ResolvedResource): MethodDecorator[] {
  if (row.conditional === 'read')
    return [ApiResponse({ status: 304, description: 'Not Modified: the document still has an ETag of If-None-Match (no body)', headers: ETAG_HEADER })];
  if (row.conditional !== 'write') return [];
  const error = ref(componentName.error) as never;
  return [
    ApiResponse({ status: 412, description: 'Error; code: MR_PRECONDITION_FAILED (ETag: the current one)', schema: error, headers: ETAG_HEADER }),
    ...(owner.requireIfMatch ? [ApiResponse({ status: 428, description: PRECONDITION_REQUIRED_TEXT, schema: error })] : []),
  ];
}

function responses(row: RouteActionRow, route: RouteDefinition, owner: ResolvedResource, byName: Definitions): MethodDecorator[] {
  const known = byName.has(route.resource);
  const document = known ? ref(componentName.document(route.resource)) : { type: 'object' };
  const list = !known
    ? envelopeSchema(document, { missing: route.action === 'list' })
    : route.action === 'list'
      ? {
          anyOf: [envelopeSchema(document, { missing: true }), envelopeSchema(ref(componentName.selected(route.resource)), { missing: true })],
        }
      : { anyOf: [ref(componentName.list(route.resource)), ref(componentName.selectedList(route.resource))] };
  const element = route.element && objectAt(documentSchema(owner, 'read'), route.element.field);
  const schema = row.answers.shape === 'list' ? list : row.answers.shape === 'element' ? (element ?? { type: 'object' }) : document;
  const state =
    row.status === 201
      ? 'created '
      : row.answers.of === 'target'
        ? 'referenced '
        : route.method === 'GET'
          ? ''
          : route.method === 'DELETE'
            ? 'deleted '
            : 'updated ';
  const description =
    row.answers.shape === 'list'
      ? known
        ? `The envelope of the results: whole ${route.resource} documents without select (${componentName.list(route.resource)}), only the ` +
          `selected fields and _id with it (${componentName.selectedList(route.resource)})`
        : 'The envelope of the results'
      : row.answers.shape === 'element'
        ? `The element of ${route.element!.field}`
        : `The ${state}${route.resource}`;
  return [
    ApiResponse({
      status: row.status,
      description: row.location ? `${description}; its URL is in the Location header` : description,
      schema: schema as never,
      ...headers(row),
    }),
    ...conditionalStatuses(row, owner),
    ...errorResponses(row),
    ...hookRefusals(row, route, owner),
    ...scopeRefusals(row, route, owner),
  ];
}

/** A write of a resource with a row scope may set or change a field the scope holds, or reach a document the request may read and not write: a 403. */
function scopeRefusals(row: RouteActionRow, route: RouteDefinition, owner: ResolvedResource): MethodDecorator[] {
  if (!owner.scope || !(row.conditional === 'write' || route.action === 'create' || route.action === 'updateMany')) return [];
  return [
    ApiResponse({
      status: 403,
      description: "Error; code: MR_OUT_OF_SCOPE (a write the request's row scope does not allow)",
      schema: ref(componentName.error) as never,
    }),
  ];
}

/** A write of a resource with lifecycle hooks may be refused by them, with any 4xx they throw: documented as a range. */
function hookRefusals(row: RouteActionRow, route: RouteDefinition, owner: ResolvedResource): MethodDecorator[] {
  if (!owner.hooks || !(row.conditional === 'write' || route.action === 'create')) return [];
  return [
    ApiResponse({
      status: '4XX',
      description: "Error: a refusal of the resource's lifecycle hooks (the status and message they throw)",
      schema: ref(componentName.error) as never,
    }),
  ];
}

/** The errors of a route, by status: those of its row, and those any route may answer (a row's own status names all its codes). */
function errorResponses(row: RouteActionRow): MethodDecorator[] {
  const common = COMMON_ERRORS.filter(([status]) => !row.errors.some(([own]) => own === status));
  return [...row.errors, ...common].map(([status, codes]) => {
    const shed = status === 503 && !row.upload;
    return ApiResponse({
      status,
      description: `Error; code: ${shed ? `${codes}, ${OVERLOADED}` : codes}`,
      schema: ref(componentName.error) as never,
      ...(shed && { headers: RETRY_AFTER_HEADER }),
    });
  });
}

/** The headers of a success: `Location` of a create, `ETag` of a document (a delete's is gone), `Preference-Applied` of a search. */
function headers(row: RouteActionRow): { headers?: Record<string, object> } {
  const headers: Record<string, object> = {
    ...(row.location && { Location: { description: 'URL of the created document', schema: { type: 'string' } } }),
    ...(row.conditional && row.method !== 'DELETE' && ETAG_HEADER),
    ...(searches(row) && PREFERENCE_APPLIED_HEADER),
  };
  return Object.keys(headers).length ? { headers } : {};
}

export type ControllerMap = ReadonlyMap<string, Type>;
