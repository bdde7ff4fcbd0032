import {
  All,
  Body,
  Controller,
  createParamDecorator,
  Delete,
  Get,
  Head,
  HttpCode,
  Options,
  Param,
  Patch,
  Post,
  Put,
  Query,
  Req,
  Res,
  SetMetadata,
  UseFilters,
  UseGuards,
  Version,
  type ExecutionContext,
  type Type,
} from '@nestjs/common';
import { ROUTE_CALL, RouteCallGuard } from '../controllers/route-call.guard.js';
import type { RouteCall } from '../call/route-call.js';
import { ROUTE_PLAN, type RoutePlan } from '../call/route-plan.js';
import { markAdmittedRoute } from '../controllers/fastify-shedding.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import { ModelRoutesExceptionFilter } from '../filters/model-routes-exception.filter.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { GeneratedRouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';
import { routeAction, type ParamSource, type RouteActionName, type RouteNames } from '../metadata/route-actions.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any method of a controller, whatever its this and its arguments
type Handler = (this: any, ...args: any[]) => unknown;

/**
 * Makes the class Nest will serve: a subclass of `handlers` (its family's handlers class) with a
 * meaningful name, as a controller without a path prefix (handlers carry full paths), every
 * failure through the one filter; the handlers of `routes` its own, in their order (see `ownHandler`).
 */
export function createControllerClass(name: string, handlers: Type, routes: ReadonlyArray<{ handler: string }> = []): Type {
  const generated = { [name]: class extends handlers {} }[name];
  for (const { handler } of routes) ownHandler(generated, handler);
  Controller()(generated);
  UseFilters(ModelRoutesExceptionFilter)(generated);
  return generated;
}

/**
 * Makes the handler `name` that the controller inherits from its handlers class its own (the very
 * function, with its route metadata). Nest registers a controller's routes in the order of its own
 * methods, then of its parents': a controller's handlers are made its own in route-table order, so
 * that its routes are served, and documented, in that order.
 */
export function ownHandler(controller: Type, name: string): void {
  const handlers = Object.getPrototypeOf(controller.prototype) as object;
  const descriptor = Object.getOwnPropertyDescriptor(handlers, name);
  if (!descriptor) throw new Error(`${controller.name}: its handlers class has no handler ${name}`);
  Object.defineProperty(controller.prototype, name, descriptor);
}

const METHOD_DECORATORS: Record<RouteMethod, (path?: string) => MethodDecorator> = {
  GET: Get,
  POST: Post,
  PUT: Put,
  DELETE: Delete,
  PATCH: Patch,
  ALL: All,
  OPTIONS: Options,
  HEAD: Head,
};

/** The parameter decorator that reads each source, for a route of these names. */
function parameterDecorator(source: ParamSource, names: RouteNames): ParameterDecorator {
  switch (source) {
    case 'id':
      return Param(names.source.idParam);
    case 'targetId':
      return Param(names.target!.idParam!);
    case 'relatedId':
      return Param(names.relatedParam!);
    case 'fileId':
      return names.fileParam ? Param(names.fileParam) : NoValue();
    case 'elementId':
      return Param(names.elementParam!);
    case 'query':
      return Query();
    case 'body':
      return Body();
    case 'request':
      return Req();
    case 'response':
      return Res({ passthrough: true });
    case 'rawResponse':
      return Res();
  }
}

/**
 * The types of a generated handler's parameters, as the compiler would record them for
 * `(id: string, body: CompanyCreateDto)`: pipes read them (a global `ValidationPipe` validates the
 * body with its DTO class), and Nest warns about a handler without them.
 */
const PARAM_TYPES: Record<Exclude<ParamSource, 'body'>, Function> = {
  id: String,
  targetId: String,
  relatedId: String,
  fileId: String,
  elementId: String,
  query: Object,
  request: Object,
  response: Object,
  rawResponse: Object,
};

/** A parameter that is always `undefined`: the `:file_id` of a single file's routes, which have none. */
const NoValue = createParamDecorator(() => undefined);

/** A generated route's plan, less what its row and its route give. */
export type GeneratedRoute = Omit<RoutePlan, 'action' | 'row' | 'readPreference'>;

/** The plans of a family's handlers, one per action. */
export type RoutePlans<A extends RouteActionName> = Record<A, RoutePlan>;

/**
 * The plan of each action of a family, for a controller whose routes are `routes`: what its entry
 * guard and its handler read (an action the controller does not serve has one too, with no route:
 * its handler is then a plain method, called only by code).
 */
export function routePlans<A extends RouteActionName>(
  actions: readonly A[],
  routes: readonly GeneratedRouteDefinition[],
  generated: (action: A) => GeneratedRoute,
): RoutePlans<A> {
  const plans = {} as RoutePlans<A>;
  for (const action of actions) {
    const route = routes.find((candidate) => candidate.action === action);
    plans[action] = Object.assign(
      {},
      generated(action),
      { action, row: routeAction(action) },
      route?.readPreference ? { readPreference: route.readPreference } : {},
    );
  }
  return plans;
}

/**
 * The views a route applies to its answer: those of the model it answers (`source`, the resource;
 * `target`, a forward reference's), where it answers documents of a class whose class-transformer
 * decorators make a difference.
 */
export function viewsFor(action: RouteActionName, source: RouteModel, target?: RouteModel): SerializationViews | undefined {
  const row = routeAction(action);
  const model = row.answers.of === 'target' ? target : source;
  if (!model || row.answers.shape === 'file' || row.answers.shape === 'element' || row.answers.shape === 'report') return undefined;
  return model.serialization;
}

/** A model as the controller factories know it: a resource's definition, or a model that is not a resource (no views). */
type RouteModel = { name: string; serialization?: SerializationViews };

/** The handler's last parameter: the request's call, as its entry guard built it. */
const CallParam = createParamDecorator(
  (_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<{ [ROUTE_CALL]?: RouteCall }>()[ROUTE_CALL],
);

/**
 * Makes the handler of one generated route (a method of its family's handlers class, written in
 * source: `find(...args) { return serveRoute(this, plans.find, args); }`) a route, from its row in
 * `ROUTE_ACTIONS`: the row's parameters and, last, the request's call; its method, path and
 * status, the decorators of its options, and last the entry guard (`RouteCallGuard`) that builds
 * the call from the plan. The handlers class is made per controller, so its methods are fresh
 * function objects: route metadata lives on the function, and sharing one would leak decorators
 * between controllers.
 */
export function decorateGeneratedHandler(handlers: Type, route: GeneratedRouteDefinition, plan: RoutePlan): void {
  const { row } = plan;
  const prototype = handlers.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler);
  if (!descriptor) throw new Error(`${handlers.name} has no handler ${route.handler}`);
  row.params.forEach((source, index) => parameterDecorator(source, plan.names)(prototype, route.handler, index));
  CallParam()(prototype, route.handler, row.params.length);
  const types = [...row.params.map((source) => (source === 'body' ? (plan.body?.dto ?? Object) : PARAM_TYPES[source])), Object];
  Reflect.defineMetadata('design:paramtypes', types, prototype, route.handler);
  // The route's last guard: your guards (authentication) answer first, and neither your interceptors
  // nor any pipe see a body that is not JSON or not valid.
  const entry = [UseGuards(RouteCallGuard), SetMetadata(ROUTE_PLAN, plan)];
  const version = route.version === undefined ? [] : [Version(route.version)];
  for (const decorate of [METHOD_DECORATORS[row.method](route.path), HttpCode(row.status), ...version, ...(route.decorators ?? []), ...entry]) {
    decorate(prototype, route.handler, descriptor);
  }
  // On Fastify, a request the admission limit would refuse is refused before its body is read (uploads are not admitted).
  if (!row.upload) markAdmittedRoute(descriptor.value as Function, plan);
}

/** Puts a fresh function named `name` on the class's prototype, calling `implementation`. */
export function defineMethod(controller: Type, name: string, implementation: Handler): Function {
  const method = {
    [name](this: unknown, ...args: unknown[]) {
      return implementation.apply(this, args);
    },
  }[name];
  Object.defineProperty(controller.prototype, name, { value: method, writable: true, configurable: true });
  return method;
}

/**
 * `doc`, or a 404 `MR_NOT_FOUND` for the document `key` names when the write or read found none:
 * the answer of every generated handler whose repository call returned `null`.
 */
export function foundIn(resource: string): <D>(doc: D | null, key: string) => D {
  return (doc, key) => {
    if (!doc) throw ModelRoutesException.notFound(resource, key);
    return doc;
  };
}
