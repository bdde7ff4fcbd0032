import { Version, type Type } from '@nestjs/common';
import { GeneratedController } from '../controllers/generated-controller.js';
import { withJsonValues } from '../controllers/json-output.util.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { CustomRouteDefinition, ResourceRouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction } from '../metadata/route-actions.js';
import type { RouteBody } from '../call/route-plan.js';
import { createControllerClass, defineGeneratedHandler, defineMethod, viewsFor } from './controller.util.js';
import { createRouteBody, type BodyKind } from './route-body.factory.js';
import { copyRouteMetadata } from '../routes/route-metadata.util.js';
import { routeNames } from '../routes/route-table.factory.js';

type Methods = Record<string, (this: unknown, ...args: unknown[]) => unknown>;

/**
 * Builds the controller Nest serves for one resource: a subclass of the user's controller (or
 * of `GeneratedController(resource)`) whose own handlers are every route of the resource, in
 * route-table order. A generated route's handler calls the method of its action's name up the
 * class chain, so a user's override (and its `super` call) runs; a user's own route keeps its
 * decorators, its path placed under the resource's path.
 */
export function createResourceController(definition: ResourceDefinition, routes: Array<ResourceRouteDefinition | CustomRouteDefinition>, base: Type | undefined, connectionName?: string): Type {
  // The repository is injected by the base class, GeneratedController(resource, connectionName).
  const parent: Type = base ?? (GeneratedController(definition.target, connectionName) as unknown as Type);
  const controller = createControllerClass(routes[0].controller, parent, {});
  const inherited = parent.prototype as Methods;
  const names = routeNames(definition);
  const bodies = routeBodies(definition);

  // A custom handler with several paths is defined once, with all of them.
  const customPaths = new Map<string, string[]>();
  for (const route of routes.filter((row) => row.action === 'custom')) {
    customPaths.set(route.handler, [...(customPaths.get(route.handler) ?? []), route.path]);
  }
  // In route-table order: Nest registers a controller's routes in the order of its methods.
  for (const route of routes) {
    if (route.action !== 'custom') {
      const row = routeAction(route.action);
      defineGeneratedHandler(controller, route, {
        names,
        resource: definition.name,
        answers: definition.name,
        views: viewsFor(route, definition),
        ...(row.body && { body: bodies[row.body as BodyKind] }),
        ...(row.location && { locationField: definition.idField }),
        // The method of the action's name up the class chain, so a user's override (and its `super` call) runs.
        work: inherited[route.action],
      });
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
function routeBodies(definition: ResourceDefinition): Record<BodyKind, RouteBody> {
  return { create: createRouteBody('create', definition.dtos.create), update: createRouteBody('update', definition.dtos.update), search: createRouteBody('search', definition.dtos.search) };
}

export { locationOf, type HttpRequest } from '../controllers/location.util.js';
