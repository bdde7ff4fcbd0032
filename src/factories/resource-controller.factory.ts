import { Body, Param, Query, Req, Res, type Type } from '@nestjs/common';
import { GeneratedController, type GeneratedResourceController } from '../controllers/generated-controller.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getRepositoryToken } from '../repository/model-repository.providers.js';
import { createControllerClass, defineHandler, defineMethod } from './controller.util.js';
import { copyRouteMetadata } from './route-metadata.util.js';

type Behaviour = GeneratedResourceController & { repository: ModelRepository };

/**
 * Builds the controller Nest serves for one resource: a subclass of the user's controller (or
 * of `GeneratedController(resource)`) whose own handlers are every route of the resource, in
 * route-table order. A generated route's handler calls the method of the same name up the
 * class chain, so a user's override (and its `super` call) runs; a user's own route keeps its
 * decorators, its path placed under the resource's path.
 */
export function createResourceController(
  definition: ResourceDefinition,
  routes: RouteDefinition[],
  base: Type | undefined,
  connectionName?: string,
): Type {
  const parent = base ?? GeneratedController(definition.target);
  const controller = createControllerClass(routes[0].controller, parent, {
    repository: getRepositoryToken(definition.name, connectionName),
  });
  const inherited = parent.prototype as Behaviour;
  const id = Param(definition.idParam);

  const specs = {
    findOne: { params: [id], handle: (self: Behaviour, key: string) => inherited.findOne.call(self, key) },
    create: {
      params: [Body(), Req(), Res({ passthrough: true })],
      async handle(self: Behaviour, body: unknown, request: HttpRequest, response: HttpResponse) {
        const doc = await inherited.create.call(self, body);
        setHeader(response, 'Location', locationOf(request, (doc as Record<string, unknown>)[definition.idField]));
        return doc;
      },
    },
    update: { params: [id, Body()], handle: (self: Behaviour, key: string, body: unknown) => inherited.update.call(self, key, body) },
    // PATCH merges exactly as PUT does (only the fields sent change): one method, `update`, to override.
    patch: { params: [id, Body()], handle: (self: Behaviour, key: string, body: unknown) => inherited.update.call(self, key, body) },
    delete: { params: [id], handle: (self: Behaviour, key: string) => inherited.delete.call(self, key) },
    search: { params: [Query()], handle: (self: Behaviour, query: Record<string, unknown>) => inherited.search.call(self, query) },
    searchPost: { params: [Body()], handle: (self: Behaviour, body: unknown) => inherited.searchPost.call(self, body) },
  };

  const customPaths = new Map<string, string[]>();
  for (const route of routes.filter((row) => row.action === 'custom')) {
    customPaths.set(route.handler, [...(customPaths.get(route.handler) ?? []), route.path]);
  }
  for (const route of routes) {
    if (route.action === 'custom') {
      const paths = customPaths.get(route.handler);
      if (!paths) continue; // a handler with several paths is defined once
      customPaths.delete(route.handler);
      const original = (inherited as unknown as Record<string, Function>)[route.handler];
      const wrapper = defineMethod(controller, route.handler, function (this: unknown, ...args: unknown[]) {
        return original.apply(this, args);
      });
      copyRouteMetadata(original, wrapper, paths.length === 1 ? paths[0] : paths);
      continue;
    }
    const spec = specs[route.action as keyof typeof specs];
    defineHandler(controller, route, function (this: Behaviour, ...args: unknown[]) {
      return (spec.handle as (self: Behaviour, ...rest: unknown[]) => unknown)(this, ...args);
    }, spec.params);
  }
  return controller;
}

interface HttpRequest {
  originalUrl?: string;
  url?: string;
}

interface HttpResponse {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
}

/** `POST /api/company` → `/api/company/<id>`: built from the request, so global prefixes hold. */
function locationOf(request: HttpRequest, id: unknown): string {
  const base = (request.originalUrl ?? request.url ?? '').split('?')[0].replace(/\/+$/, '');
  return `${base}/${encodeURIComponent(String(id))}`;
}

/** Works with Express (`res.header`) and Fastify (`reply.header`) alike. */
function setHeader(response: HttpResponse, name: string, value: string): void {
  if (typeof response.header === 'function') response.header(name, value);
  else response.setHeader?.(name, value);
}
