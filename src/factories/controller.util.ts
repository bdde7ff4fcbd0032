import { All, Body, Controller, createParamDecorator, Delete, Get, Head, HttpCode, Inject, Options, Param, Patch, Post, Put, Query, Req, Res, SetMetadata, UseFilters, UseGuards, Version, type ExecutionContext, type Type } from '@nestjs/common';
import { ROUTE_CALL, RouteCallGuard } from '../controllers/route-call.guard.js';
import type { RouteCall } from '../call/route-call.js';
import { ROUTE_PLAN, type RoutePlan } from '../call/route-plan.js';
import { serveRoute } from '../controllers/serve-route.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import { ModelRoutesExceptionFilter } from '../filters/model-routes-exception.filter.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { GeneratedRouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';
import { routeAction, type ParamSource, type RouteNames } from '../metadata/route-actions.js';

type Handler = (this: any, ...args: any[]) => unknown;

/**
 * Makes the class Nest will serve: a fresh subclass of `base` with a meaningful name, as a
 * controller without a path prefix (handlers carry full paths), every failure through the one
 * filter, and each injection set as a property.
 */
export function createControllerClass(name: string, base: Type | undefined, injections: Record<string, string | symbol | Type>): Type {
  const Base = base ?? class {};
  const generated = { [name]: class extends Base {} }[name];
  for (const [property, token] of Object.entries(injections)) Inject(token)(generated.prototype, property);
  Controller()(generated);
  UseFilters(ModelRoutesExceptionFilter)(generated);
  return generated;
}

const METHOD_DECORATORS: Record<RouteMethod, (path?: string) => MethodDecorator> = {
  GET: Get, POST: Post, PUT: Put, DELETE: Delete, PATCH: Patch, ALL: All, OPTIONS: Options, HEAD: Head,
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

/** A generated route's plan, less what its row and its definition give. */
export type GeneratedRoute = Omit<RoutePlan, 'action' | 'row' | 'readPreference'>;

/**
 * The views a route applies to its answer: those of the model it answers (`source`, the resource;
 * `target`, a forward reference's), where it answers documents of a class whose class-transformer
 * decorators make a difference.
 */
export function viewsFor(route: GeneratedRouteDefinition, source: RouteModel, target?: RouteModel): SerializationViews | undefined {
  const row = routeAction(route.action);
  const model = row.answers.of === 'target' ? target : source;
  if (!model || typeof model === 'string' || row.answers.shape === 'file' || row.answers.shape === 'element') return undefined;
  return model.serialization;
}

/** A model as the controller factories know it: a resource's definition, or only a name. */
type RouteModel = { name: string; serialization?: SerializationViews } | string;

/** The handler's last parameter: the request's call, as its entry guard built it. */
const CallParam = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<{ [ROUTE_CALL]?: RouteCall }>()[ROUTE_CALL]);

/**
 * Defines the handler of one generated route on its controller, from its row in `ROUTE_ACTIONS`:
 * a method named after the action that hands its arguments to `serveRoute` with the route's plan
 * (a new function object per class: route metadata lives on the function, so sharing one would
 * leak decorators between controllers), with the row's parameters and, last, the request's call;
 * its method, path and status, the decorators of its options, and last the entry guard
 * (`RouteCallGuard`) that builds the call from the plan.
 */
export function defineGeneratedHandler(controller: Type, route: GeneratedRouteDefinition, generated: GeneratedRoute): void {
  const { action } = route;
  const row = routeAction(action);
  const plan: RoutePlan = { ...generated, action, row, ...(route.readPreference && { readPreference: route.readPreference }) };
  const handler = {
    [route.handler](this: object, ...args: unknown[]) {
      return serveRoute(this, plan, args);
    },
  }[route.handler];
  Object.defineProperty(controller.prototype, route.handler, { value: handler, writable: true, configurable: true });
  const prototype = controller.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler)!;
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
