import type { ReadPreferenceMode } from './route-options.interface.js';
import type { RouteActionName } from '../metadata/route-actions.js';

/**
 * The generated route actions (one row each in `ROUTE_ACTIONS`), and `custom` for your own routes.
 *
 * @publicApi
 */
export type RouteAction = RouteActionName | 'custom';

/** @publicApi */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'ALL' | 'OPTIONS' | 'HEAD';

/**
 * One generated route: data, built once at startup, ordered.
 *
 * @publicApi
 */
export interface RouteDefinition {
  action: RouteAction;
  method: RouteMethod;
  /** Full path, e.g. `/company/:company_id/owner`. */
  path: string;
  /** Model name of the resource whose data the route returns or changes. */
  resource: string;
  /** Name of the generated controller class. */
  controller: string;
  /** Name of the handler method on that class. */
  handler: string;
  /** For reference routes: the field and the referenced model. */
  reference?: { source: string; field: string; target: string };
  /** For file routes: the file field. */
  file?: { source: string; field: string };
  /** For the element routes of an array of sub-documents: the array. */
  element?: { source: string; field: string };
  /** Guards, interceptors, pipes and decorators from the route options, for generated routes. */
  decorators?: MethodDecorator[];
  /** Where a generated read route's queries read (its `readPreference` option); the connection's when absent. */
  readPreference?: ReadPreferenceMode;
}
