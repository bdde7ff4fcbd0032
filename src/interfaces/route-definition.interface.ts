import type { ReadPreferenceMode, RouteVersion } from './route-options.interface.js';
import type { ElementActionName, FileActionName, ReferenceActionName, ResourceActionName, RouteActionName, RouteMethod } from '../metadata/route-actions.js';

export type { RouteMethod } from '../metadata/route-actions.js';

/**
 * The generated route actions (one row each in `ROUTE_ACTIONS`), and `custom` for your own routes.
 *
 * @publicApi
 */
export type RouteAction = RouteActionName | 'custom';

/** What every route of the table has, whatever its family. */
interface RouteDefinitionBase {
  method: RouteMethod;
  /** Full path, e.g. `/company/:company_id/owner`. */
  path: string;
  /** Model name of the resource whose data the route returns or changes. */
  resource: string;
  /** Name of the generated controller class. */
  controller: string;
  /** Name of the handler method on that class. */
  handler: string;
  /** Guards, interceptors, pipes and decorators from the route options, for generated routes. */
  decorators?: MethodDecorator[];
  /** Where a generated read route's queries read (its `readPreference` option); the connection's when absent. */
  readPreference?: ReadPreferenceMode;
  /**
   * The API version(s) the route serves (the route's `version` option, else its resource's, else
   * `forRoot`'s; for your routes, their `@Version()`, else your controller's): absent when none is
   * given, and the app's `defaultVersion` then applies. The path is the same in every version.
   */
  version?: RouteVersion;
}

/** The generated routes of a resource. */
export interface ResourceRouteDefinition extends RouteDefinitionBase {
  action: ResourceActionName;
  reference?: undefined;
  file?: undefined;
  element?: undefined;
}

/** Your own routes, on a resource's controller. */
export interface CustomRouteDefinition extends RouteDefinitionBase {
  action: 'custom';
  reference?: undefined;
  file?: undefined;
  element?: undefined;
}

/** Routes of a reference field. */
export interface ReferenceRouteDefinition extends RouteDefinitionBase {
  action: ReferenceActionName;
  /** The field and the referenced model. */
  reference: { source: string; field: string; target: string };
  file?: undefined;
  element?: undefined;
}

/** Routes of a file field. */
export interface FileRouteDefinition extends RouteDefinitionBase {
  action: FileActionName;
  /** The file field. */
  file: { source: string; field: string };
  reference?: undefined;
  element?: undefined;
}

/** The element routes of an array of sub-documents. */
export interface ElementRouteDefinition extends RouteDefinitionBase {
  action: ElementActionName;
  /** The array. */
  element: { source: string; field: string };
  reference?: undefined;
  file?: undefined;
}

/**
 * One route: data, built once at startup, ordered. Its family (`reference`, `file`, `element`, or none
 * for a resource's) tells which actions it may have.
 *
 * @publicApi
 */
export type RouteDefinition = ResourceRouteDefinition | CustomRouteDefinition | ReferenceRouteDefinition | FileRouteDefinition | ElementRouteDefinition;

/** A route the library generates: every route of the table but your own (`custom`). */
export type GeneratedRouteDefinition = Exclude<RouteDefinition, CustomRouteDefinition>;
