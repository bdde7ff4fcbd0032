import type { OpenAPIObject } from '@nestjs/swagger';
import type { ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import type { ResolvedResource } from '../definitions/resource-definition.interface.js';
import type { GeneratedRouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction } from '../metadata/route-actions.js';
import { componentName, ifMatchText, limitParameterText, operationId, PRECONDITION_REQUIRED_TEXT, preferCountText } from './openapi-routes.js';
import { searchLimitText } from './openapi-schemas.js';
import { expandablePaths } from '../relations/expandable-paths.js';

interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  description?: string;
  style?: string;
  explode?: boolean;
  schema?: { default?: unknown; maximum?: unknown; type?: string; items?: object };
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  responses?: Record<string, object>;
}

type Properties = Record<string, { description?: string; maximum?: unknown; oneOf?: object[] }>;

/**
 * Writes the app's own settings into its document: the search limits of its search routes (their
 * `limit` and `skip`, as parameters or in their bodies, and the default count their `Prefer` names) and, on its writes, whether `If-Match` is
 * required (with the 428 that answers its absence). The handlers and body classes the operations
 * are read from are made once per `forRoot`, and shared by every app built from it, whose settings
 * (from `forRootAsync`'s factory) may differ: what depends on them is taken from the app's
 * registrations, here.
 */
export function documentSettings(document: OpenAPIObject, registrations: readonly ModelRoutesRegistration[]): void {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { properties?: Properties }>;
  const routes = new Map<
    string,
    { route: GeneratedRouteDefinition; owner: ResolvedResource; answers?: ResolvedResource; byName: ReadonlyMap<string, ResolvedResource> }
  >();
  for (const registration of registrations) {
    const byName = new Map(registration.definitions.map((definition) => [definition.name, definition]));
    for (const route of registration.routes) {
      const owner = route.action !== 'custom' && byName.get(route.reference?.source ?? route.resource);
      if (route.action !== 'custom' && owner) routes.set(operationId(route, owner), { route, owner, answers: byName.get(route.resource), byName });
    }
  }
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      const id = typeof operation === 'object' ? operation?.operationId : undefined;
      // A versioned app's operationIds end with their versions (`company_findOne_v1`).
      const found = id === undefined ? undefined : (routes.get(id) ?? [...routes].find(([base]) => id.startsWith(`${base}_v`))?.[1]);
      if (!found) continue;
      const row = routeAction(found.route.action);
      const search = found.answers?.search;
      if (search && row.searchQuery) {
        const parameter = (name: string) => operation.parameters?.find((candidate) => candidate.in === 'query' && candidate.name === name);
        const limit = parameter('limit');
        const skip = parameter('skip');
        if (limit?.schema) [limit.schema.default, limit.description] = [search.defaultLimit, limitParameterText(search)];
        if (skip?.schema) skip.schema.maximum = search.maxSkip;
      }
      const prefer = operation.parameters?.find((candidate) => candidate.in === 'header' && candidate.name === 'Prefer');
      if (search && prefer) prefer.description = preferCountText(search);
      const body = row.body === 'search' ? operation.requestBody?.content?.['application/json']?.schema?.$ref?.split('/').pop() : undefined;
      const properties = body === undefined ? undefined : schemas[body]?.properties;
      if (search && properties?.limit && properties.skip) [properties.limit.description, properties.skip.maximum] = [searchLimitText(search), search.maxSkip];
      const expandable =
        row.expand && found.answers ? expandablePaths(found.answers.name, (name) => found.byName.get(name), found.answers.search.maxExpandDepth) : [];
      if (expandable.length) documentExpand(operation, row.body === 'search' ? properties : undefined, expandable);
      else if (properties) delete properties.expand;
      if (row.conditional === 'write') {
        const required = found.owner.requireIfMatch;
        const ifMatch = operation.parameters?.find((candidate) => candidate.in === 'header' && candidate.name === 'If-Match');
        if (ifMatch) [ifMatch.required, ifMatch.description] = [required, ifMatchText(required)];
        const responses = (operation.responses ??= {});
        if (required)
          responses['428'] ??= {
            description: PRECONDITION_REQUIRED_TEXT,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName.error}` } } },
          };
        else delete responses['428'];
      }
    }
  }
}

/** The `expand` a route takes, with the paths it may name: a query parameter, or a member of its search body. */
function documentExpand(operation: Operation, body: Properties | undefined, paths: string[]): void {
  const list = { type: 'array', items: { type: 'string', enum: paths } };
  const description = `References to answer as the documents they name, comma-separated: ${paths.join(', ')}.`;
  if (body) {
    body.expand = { oneOf: [list, { type: 'string', description }], description };
    return;
  }
  const parameters = (operation.parameters ??= []);
  if (parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'expand')) return;
  parameters.push({ name: 'expand', in: 'query', required: false, style: 'form', explode: false, schema: list, description });
}
