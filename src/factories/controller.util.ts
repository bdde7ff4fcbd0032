import { All, Body, Controller, createParamDecorator, Delete, Get, Head, HttpCode, Inject, Options, Param, Patch, Post, Put, Query, Req, Res, UseFilters, UseGuards, Version, type CanActivate, type Type } from '@nestjs/common';
import { handleConditionally, type ConditionalRequest, type ConditionalRoute } from '../concurrency/conditional-request.js';
import type { HttpResponse } from '../controllers/http-response.util.js';
import { runInRouteContext, type RouteContext } from '../concurrency/route-context.js';
import { checkedBodyOf } from '../controllers/body-check.guard.js';
import { withJsonValues } from '../controllers/json-output.util.js';
import { ModelRoutesExceptionFilter } from '../errors/model-routes-exception.filter.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { RouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';
import { routeAction, type ParamSource, type RouteActionName, type RouteNames } from '../metadata/route-actions.js';

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

/** The body of a generated route: its DTO class, and the guard that checks it before any pipe. */
export interface RouteBody {
  dto: Type;
  check: Type<CanActivate>;
}

/**
 * Defines the handler of one generated route on its controller, from its row in `ROUTE_ACTIONS`:
 * a new function object per class (route metadata lives on the function, so sharing one would
 * leak decorators between controllers), named after the action, with its parameters, its method,
 * path and status, the decorators of its options, and the body check where it reads a body. Where
 * it reads a body, `implementation` is given the body check's result, or what the pipes made of
 * the body where they changed it (see `checkedBodyOf`). Where it answers one document, it takes
 * part in conditional requests (`ETag`, `If-Match`, `If-None-Match`; see `handleConditionally`),
 * through a request and a response parameter of its own after those of its row. Its answer leaves
 * with identifiers as strings, whatever serializer the app uses (`withJsonValues`).
 *
 * @param requiresIfMatch whether the writes of the route's resource need `If-Match`, read from a controller instance
 */
export function defineGeneratedHandler(
  controller: Type,
  route: RouteDefinition,
  names: RouteNames,
  implementation: Handler,
  body?: RouteBody,
  requiresIfMatch: (instance: any) => boolean = () => false,
): void {
  const row = routeAction(route.action as RouteActionName);
  const bodyIndex = row.params.indexOf('body');
  const requestIndex = row.params.indexOf('request');
  const conditional: ConditionalRoute | undefined = row.conditional && { kind: row.conditional, resource: names.source.name, idParam: names.source.idParam, requiresIfMatch };
  const { readPreference } = route;
  const params: readonly ParamSource[] = conditional ? [...row.params, 'request', 'response'] : row.params;
  defineMethod(controller, route.handler, async function (this: unknown, ...args: unknown[]) {
    if (bodyIndex >= 0) args[bodyIndex] = checkedBodyOf(args[requestIndex] as object, args[bodyIndex], body?.dto);
    const [request, response] = conditional ? (args.splice(row.params.length, 2) as [ConditionalRequest?, HttpResponse?]) : [];
    let handle = () => implementation.apply(this, args) as Promise<unknown>;
    if (readPreference) handle = inRouteContext({ readPreference }, handle);
    // Without a request, the handler was called by code (a generated `patch` calls `update`): the caller's request governs.
    if (!request || !response) return withJsonValues(await handle());
    return withJsonValues(await handleConditionally(conditional!, this, request, response, handle));
  });
  const prototype = controller.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler)!;
  params.forEach((source, index) => parameterDecorator(source, names)(prototype, route.handler, index));
  const types = params.map((source) => (source === 'body' ? (body?.dto ?? Object) : PARAM_TYPES[source]));
  Reflect.defineMetadata('design:paramtypes', types, prototype, route.handler);
  // The route's last guard: your guards (authentication) answer first, and neither your interceptors
  // nor any pipe see a body that is not JSON or not valid.
  const checks = body ? [UseGuards(body.check)] : [];
  const version = route.version === undefined ? [] : [Version(route.version)];
  for (const decorate of [METHOD_DECORATORS[row.method](route.path), HttpCode(row.status), ...version, ...(route.decorators ?? []), ...checks]) {
    decorate(prototype, route.handler, descriptor);
  }
}

/** `work`, run with `context` in force for the repository calls it makes. */
function inRouteContext<R>(context: RouteContext, work: () => R): () => R {
  return () => runInRouteContext(context, work);
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
