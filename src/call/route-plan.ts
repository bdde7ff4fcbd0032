import type { Type } from '@nestjs/common';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { RouteActionName, RouteActionRow, RouteNames } from '../metadata/route-actions.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import type { WriteRules } from '../write/write-body.validator.js';

/** The library's own check of a route's body, against its resource's rules; returns what the handler is given in its place. */
export type BodyCheck = (body: unknown, rules: WriteRules) => unknown;

/** The body of a generated route: its DTO class (pipes and the OpenAPI document read it), and the library's check. */
export interface RouteBody {
  dto: Type;
  check: BodyCheck;
}

/** The work of a generated route: the overridable method of its action, or its family's handler, called with the row's arguments. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any method of a controller, whatever its this and its arguments
export type RouteWork = (this: any, ...args: any[]) => unknown;

/**
 * One generated route, as its entry guard and its handler need it: fixed at startup, the same
 * for every request. Each request's own state is its `RouteCall`.
 */
export interface RoutePlan {
  action: RouteActionName;
  row: RouteActionRow;
  names: RouteNames;
  /** The resource whose repository the route reads (its fields, and its settings: search limits, `requireIfMatch`). */
  resource: string;
  /** The model whose documents it answers, and whose search it reads (a forward reference's target, else the resource). */
  answers: string;
  /** That model's serialization views, where its class-transformer decorators make a difference. */
  views?: SerializationViews;
  body?: RouteBody;
  readPreference?: ReadPreferenceMode;
  /** The field a created document's URL ends with, for a route whose work leaves `Location` to the route (a resource's create). */
  locationField?: string;
  work: RouteWork;
  /**
   * Whether `work` is the library's own, and so is every method of its family that it may call (the
   * app's controller overrides none): it is handed its call in its controller's view, and runs
   * outside the ambient slot, which only the app's code needs.
   */
  ownWork?: boolean;
}

/** The metadata key of a generated handler's plan, read by its entry guard (as Nest's own guards read a route's metadata). */
export const ROUTE_PLAN = 'nestjs-model-routes:route-plan';
