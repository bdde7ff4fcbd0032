import { MODEL_ROUTES_REGISTRATION } from '../constants.js';
import { Injectable, type Type } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import type { ModelRoutesModuleOptions } from '../interfaces/model-routes-options.interface.js';
import type { ResolvedResource } from '../definitions/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { planModelRoutes } from '../routes/model-routes-plan.js';

/**
 * What one `ModelRoutesModule.forRoot()` (or `forRootAsync()`) built.
 *
 * @publicApi
 */
export interface ModelRoutesRegistration {
  /** The Mongoose connection of its models; `undefined` for the default one. */
  readonly connectionName?: string;
  /** The resources, with the settings in force in this application. */
  readonly definitions: readonly ResolvedResource[];
  /** Its routes, in the order Nest registers them. */
  readonly routes: readonly RouteDefinition[];
  /** The controller classes Nest serves, by name (as in `routes[].controller`). */
  readonly controllers: ReadonlyMap<string, Type>;
  /** The groups a request is served with (`forRoot({ serializationGroups })`): which fields it sees, and so may write. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  readonly serializationGroups?: (request: any) => string[] | undefined;
}

/**
 * The generated routes of the application, for tooling, documentation and tests: every
 * registration of `ModelRoutesModule` (one per connection), and all their routes.
 *
 * @example
 * ```ts
 * const routes = app.get(ModelRoutesExplorer).routes();
 * console.log(formatRouteTable(routes));
 * ```
 *
 * @publicApi
 */
@Injectable()
export class ModelRoutesExplorer {
  constructor(private readonly modules: ModulesContainer) {}

  /**
   * The route table that `forRoot(options)` gives, without an application, a server or a
   * database (for a script that prints the routes, say). Throws the configuration errors
   * that `forRoot` would.
   */
  static routeTable(options: ModelRoutesModuleOptions): RouteDefinition[] {
    return planModelRoutes(options).table;
  }

  /** Every registration of the module in this application, in the order Nest loaded them. */
  registrations(): ModelRoutesRegistration[] {
    const found: ModelRoutesRegistration[] = [];
    for (const module of this.modules.values()) {
      const registration = module.providers.get(MODEL_ROUTES_REGISTRATION)?.instance as ModelRoutesRegistration | undefined;
      if (registration) found.push(registration);
    }
    return found;
  }

  /** Every generated and user route of every registration. */
  routes(): RouteDefinition[] {
    return this.registrations().flatMap((registration) => registration.routes);
  }
}

/**
 * A route table as aligned text: method, path, controller and handler, one route per line; and
 * the version(s) of each route (`v1`, `v1,v2`, `neutral`) when any has one.
 *
 * @publicApi
 */
export function formatRouteTable(routes: readonly RouteDefinition[]): string {
  const width = Math.max(0, ...routes.map((route) => route.path.length));
  const versioned = routes.some((route) => route.version !== undefined);
  const handlerWidth = versioned ? Math.max(0, ...routes.map((route) => `${route.controller}.${route.handler}`.length)) : 0;
  return routes
    .map((route) => {
      const line = `${route.method.padEnd(6)} ${route.path.padEnd(width)}  ${`${route.controller}.${route.handler}`.padEnd(handlerWidth)}`;
      return versioned ? `${line}  ${versionLabel(route.version)}`.trimEnd() : line;
    })
    .join('\n');
}

function versionLabel(version: RouteDefinition['version']): string {
  if (version === undefined) return '';
  return (Array.isArray(version) ? version : [version]).map((one) => (typeof one === 'string' ? `v${one}` : 'neutral')).join(',');
}
