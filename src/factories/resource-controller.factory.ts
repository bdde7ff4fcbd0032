import { Version, type Type } from '@nestjs/common';
import { GeneratedController } from '../controllers/generated-controller.js';
import { setHeader, type HttpResponse } from '../controllers/http-response.util.js';
import { withJsonValues } from '../controllers/json-output.util.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction, type RouteActionName } from '../metadata/route-actions.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { createControllerClass, defineGeneratedHandler, defineMethod, type RouteBody } from './controller.util.js';
import { createRouteBody, type BodyKind } from './route-body.factory.js';
import { serializeRoute } from '../serialization/serialization.interceptor.js';
import { copyRouteMetadata } from './route-metadata.util.js';
import { routeNames } from './route-table.factory.js';
import { pascalCase } from '../utils/naming.util.js';

type Methods = Record<string, (this: unknown, ...args: unknown[]) => unknown>;

/** The setting in force, on the repository the controller was given (`forRootAsync`'s settings included). */
const requiresIfMatch = (controller: { repository: ModelRepository }) => controller.repository.definition.requireIfMatch === true;

/**
 * Builds the controller Nest serves for one resource: a subclass of the user's controller (or
 * of `GeneratedController(resource)`) whose own handlers are every route of the resource, in
 * route-table order. A generated route's handler calls the method of its action's name up the
 * class chain, so a user's override (and its `super` call) runs; a user's own route keeps its
 * decorators, its path placed under the resource's path.
 */
export function createResourceController(definition: ResourceDefinition, routes: RouteDefinition[], base: Type | undefined, connectionName?: string): Type {
  // The repository is injected by the base class, GeneratedController(resource, connectionName).
  const parent: Type = base ?? (GeneratedController(definition.target, connectionName) as unknown as Type);
  const controller = createControllerClass(routes[0].controller, parent, {});
  const inherited = parent.prototype as Methods;
  const names = routeNames(definition);
  const bodies = routeBodies(definition, connectionName);

  // A custom handler with several paths is defined once, with all of them.
  const customPaths = new Map<string, string[]>();
  for (const route of routes.filter((row) => row.action === 'custom')) {
    customPaths.set(route.handler, [...(customPaths.get(route.handler) ?? []), route.path]);
  }
  // In route-table order: Nest registers a controller's routes in the order of its methods.
  for (const route of routes) {
    if (route.action !== 'custom') {
      const row = routeAction(route.action as RouteActionName);
      defineGeneratedHandler(controller, route, names, generatedHandler(route.action, inherited, definition.idField), row.body && bodies[row.body as BodyKind], requiresIfMatch);
      serializeRoute(controller, route, definition);
      continue;
    }
    const paths = customPaths.get(route.handler);
    if (!paths) continue;
    customPaths.delete(route.handler);
    const original = inherited[route.handler];
    // Its answer too leaves with identifiers as strings, whatever serializer the app uses.
    const wrapper = defineMethod(controller, route.handler, function (this: unknown, ...args: unknown[]) {
      const answer = original.apply(this, args);
      return answer instanceof Promise ? answer.then(withJsonValues) : withJsonValues(answer);
    });
    copyRouteMetadata(original, wrapper, paths.length === 1 ? paths[0] : paths);
    // Its version as the route table says: its own `@Version()`, else your controller's, else the resource's.
    if (route.version !== undefined) Version(route.version)(controller.prototype, route.handler, Object.getOwnPropertyDescriptor(controller.prototype, route.handler)!);
  }
  return controller;
}

/** The body of each kind the resource's routes read: its DTO (the user's, or the generated one) and its check. */
function routeBodies(definition: ResourceDefinition, connectionName: string | undefined): Record<BodyKind, RouteBody> {
  const token = getModelRepositoryToken(definition.name, connectionName);
  const body = (kind: BodyKind) => createRouteBody(kind, definition.dtos[kind], `${definition.name}${pascalCase(kind)}BodyCheck`, token);
  return { create: body('create'), update: body('update'), search: body('search') };
}

/**
 * The handler of a generated route: the overridable method of the same name, given the arguments
 * it takes (not the request and response, which are the route's); where the action answers
 * `Location`, that header is set from the created document.
 */
function generatedHandler(action: RouteActionName, inherited: Methods, idField: string) {
  const row = routeAction(action);
  const request = row.params.indexOf('request');
  const response = row.params.indexOf('response');
  if (request < 0 && response < 0) return inherited[action];
  return async function (this: unknown, ...args: unknown[]) {
    const result = await inherited[action].apply(this, args.filter((_arg, index) => index !== request && index !== response));
    if (row.location) setHeader(args[response] as HttpResponse, 'Location', locationOf(args[request] as HttpRequest, (result as Record<string, unknown>)[idField]));
    return result;
  };
}

export interface HttpRequest {
  originalUrl?: string;
  url?: string;
}

/**
 * `POST /api/company` → `/api/company/<id>`: built from the request's path, so global prefixes hold.
 * Always a path (a relative reference), never a URL: a request line in absolute form
 * (`POST http://evil.example/company`) names a host the client chose, which is left out, and a
 * path that starts with `//` would read as one, so it starts with a single `/`.
 */
export function locationOf(request: HttpRequest, id: unknown): string {
  const url = request.originalUrl ?? request.url ?? '';
  const query = url.indexOf('?');
  let end = query < 0 ? url.length : query;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f /* / */) end--;
  const path = url.slice(0, end).replace(ABSOLUTE_URL_START, '').replace(/^\/+/, '');
  return `/${path ? `${path}/` : ''}${encodeURIComponent(String(id))}`;
}

/** The scheme and authority of an absolute-form request target (RFC 9112 section 3.2.2). */
const ABSOLUTE_URL_START = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;
