import { RowScopeInterceptor } from '../controllers/row-scope.interceptor.js';
import { UseInterceptors, Version, type Type } from '@nestjs/common';
import { GeneratedController, isLibraryWork } from '../controllers/generated-controller.js';
import { withJsonValues } from '../controllers/json-output.util.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { CustomRouteDefinition, ResourceRouteDefinition } from '../interfaces/route-definition.interface.js';
import { actionsOf, routeAction, type ResourceActionName } from '../metadata/route-actions.js';
import type { RouteBody } from '../call/route-plan.js';
import { serveRoute } from '../controllers/serve-route.js';
import { serveExport } from '../export/serve-export.js';
import { serveImport } from '../import/serve-import.js';
import { markUploadRoute } from '../files/fastify-uploads.js';
import { createControllerClass, decorateGeneratedHandler, defineMethod, ownHandler, routePlans, viewsFor, type RoutePlans } from './controller.util.js';
import { createRouteBody, type BodyKind } from './route-body.factory.js';
import { copyRouteMetadata } from '../routes/route-metadata.util.js';
import { routeNames } from '../routes/route-table.factory.js';

type Methods = Record<string, (this: unknown, ...args: unknown[]) => unknown>;

/**
 * Builds the controller Nest serves for one resource: over the user's controller (or
 * `GeneratedController(resource)`), the handlers of its generated routes (`ResourceHandlers`),
 * each calling the method of its action's name up the class chain, so a user's override (and its
 * `super` call) runs; and the user's own routes, with their decorators, their paths placed under
 * the resource's path. All in route-table order, so that `/company/stats` is never shadowed by `/company/:company_id`.
 */
export function createResourceController(
  definition: ResourceDefinition,
  routes: Array<ResourceRouteDefinition | CustomRouteDefinition>,
  base: Type | undefined,
  connectionName?: string,
): Type {
  // The repository is injected by the base class, GeneratedController(resource, connectionName).
  const parent: Type = base ?? (GeneratedController(definition.target, connectionName) as unknown as Type);
  const inherited = parent.prototype as Methods;
  const names = routeNames(definition);
  const bodies = routeBodies(definition);
  const generated = routes.filter((route): route is ResourceRouteDefinition => route.action !== 'custom');
  // The library's own work runs with no ambient call, unless the app's class overrides one of its
  // actions: a generated method may call another (`patch` calls `update`), so one override is enough.
  const ownWork = actionsOf('resource').every((action) => isLibraryWork(inherited[action]));
  const plans = routePlans(actionsOf('resource'), generated, (action) => {
    const row = routeAction(action);
    return {
      names,
      resource: definition.name,
      answers: definition.name,
      views: viewsFor(action, definition),
      ...(row.body && { body: bodies[row.body as BodyKind] }),
      ...(row.location && { locationField: definition.idField }),
      work: inherited[action],
      ownWork,
    };
  });
  const handlers = resourceHandlers(parent, plans);
  for (const route of generated) {
    decorateGeneratedHandler(handlers, route, plans[route.action]);
    // Fastify leaves an import's CSV or NDJSON body unread for its handler to stream (see `FastifyImports`).
    if (route.action === 'import') markUploadRoute(handlers.prototype[route.handler]);
  }
  const controller = createControllerClass(routes[0].controller, handlers);

  // A custom handler with several paths is defined once, with all of them.
  const customPaths = new Map<string, string[]>();
  for (const route of routes.filter((row) => row.action === 'custom')) {
    customPaths.set(route.handler, [...(customPaths.get(route.handler) ?? []), route.path]);
  }
  // In route-table order: Nest registers a controller's routes in the order of its own methods.
  for (const route of routes) {
    if (route.action !== 'custom') {
      ownHandler(controller, route.handler);
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
    // Its repository calls apply the request's row scopes, as the generated routes' do.
    UseInterceptors(RowScopeInterceptor)(controller.prototype, route.handler, Object.getOwnPropertyDescriptor(controller.prototype, route.handler)!);
    // Its version as the route table says: its own `@Version()`, else your controller's, else the resource's.
    if (route.version !== undefined)
      Version(route.version)(controller.prototype, route.handler, Object.getOwnPropertyDescriptor(controller.prototype, route.handler)!);
  }
  return controller;
}

/**
 * The handlers of a resource's generated routes, over `parent`: each hands its arguments (the
 * row's, then the request's call) to `serveRoute` with its route's plan, whose work is `parent`'s
 * method of the same name. Made per controller: route metadata lives on the function objects.
 */
function resourceHandlers(parent: Type, plans: RoutePlans<ResourceActionName>): Type {
  class ResourceHandlers extends parent {
    findOne(...args: unknown[]) {
      return serveRoute(this, plans.findOne, args);
    }
    create(...args: unknown[]) {
      return serveRoute(this, plans.create, args);
    }
    update(...args: unknown[]) {
      return serveRoute(this, plans.update, args);
    }
    patch(...args: unknown[]) {
      return serveRoute(this, plans.patch, args);
    }
    delete(...args: unknown[]) {
      return serveRoute(this, plans.delete, args);
    }
    search(...args: unknown[]) {
      return serveRoute(this, plans.search, args);
    }
    searchPost(...args: unknown[]) {
      return serveRoute(this, plans.searchPost, args);
    }
    export(...args: unknown[]) {
      return serveExport(this, plans.export, args);
    }
    exportPost(...args: unknown[]) {
      return serveExport(this, plans.exportPost, args);
    }
    import(...args: unknown[]) {
      return serveImport(this, plans.import, args);
    }
    updateMany(...args: unknown[]) {
      return serveRoute(this, plans.updateMany, args);
    }
    deleteMany(...args: unknown[]) {
      return serveRoute(this, plans.deleteMany, args);
    }
    trash(...args: unknown[]) {
      return serveRoute(this, plans.trash, args);
    }
    restore(...args: unknown[]) {
      return serveRoute(this, plans.restore, args);
    }
    purge(...args: unknown[]) {
      return serveRoute(this, plans.purge, args);
    }
    history(...args: unknown[]) {
      return serveRoute(this, plans.history, args);
    }
    revert(...args: unknown[]) {
      return serveRoute(this, plans.revert, args);
    }
  }
  return ResourceHandlers;
}

/** The body of each kind the resource's routes read: its DTO (the user's, or the generated one) and its check. */
function routeBodies(definition: ResourceDefinition): Record<BodyKind, RouteBody> {
  return {
    create: createRouteBody('create', definition.dtos.create, definition.discriminator),
    update: createRouteBody('update', definition.dtos.update),
    search: createRouteBody('search', definition.dtos.search),
  };
}

export { locationOf, type HttpRequest } from '../controllers/location.util.js';
