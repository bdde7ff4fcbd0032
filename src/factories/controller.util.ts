import { All, Controller, Delete, Get, Head, HttpCode, Inject, Options, Patch, Post, Put, UseFilters, UseInterceptors, type Type } from '@nestjs/common';
import { JsonBodyInterceptor } from '../controllers/json-body.interceptor.js';
import { ModelRoutesExceptionFilter } from '../errors/model-routes-exception.filter.js';
import type { RouteAction, RouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';

type Handler = (this: any, ...args: any[]) => unknown;

/** How a generated controller serves one route action: the function and its parameter decorators. */
export interface HandlerSpec<C> {
  handle: (this: C, ...args: any[]) => unknown;
  params: ParameterDecorator[];
}

/**
 * Makes the class Nest will serve: a fresh subclass of `base` with a meaningful name, as a
 * controller without a path prefix (handlers carry full paths), every failure through the one
 * filter, and each injection set as a property.
 */
export function createControllerClass(name: string, base: Type | undefined, injections: Record<string, string>): Type {
  const Base = base ?? class {};
  const generated = { [name]: class extends Base {} }[name];
  for (const [property, token] of Object.entries(injections)) Inject(token)(generated.prototype, property);
  Controller()(generated);
  UseFilters(ModelRoutesExceptionFilter)(generated);
  return generated;
}

/** Defines the handler of every generated route, in route order, from the specs keyed by action. */
export function defineHandlers<C>(controller: Type, routes: RouteDefinition[], specs: Partial<Record<RouteAction, HandlerSpec<C>>>): void {
  for (const route of routes) {
    const spec = specs[route.action];
    if (!spec) throw new Error(`${route.controller}: no handler for route action '${route.action}'`);
    defineHandler(controller, route, spec.handle, spec.params);
  }
}

/** The generated routes that read a JSON body. */
const JSON_BODY_ACTIONS = new Set<RouteAction>(['create', 'update', 'patch', 'searchPost', 'referenceSearchPost']);

const METHOD_DECORATORS: Record<RouteMethod, (path?: string) => MethodDecorator> = {
  GET: Get, POST: Post, PUT: Put, DELETE: Delete, PATCH: Patch, ALL: All, OPTIONS: Options, HEAD: Head,
};

/**
 * Defines one route handler on a generated controller: a new function object per class (route
 * metadata lives on the function, so sharing one would leak decorators between controllers),
 * named after the route, with its parameter decorators, its HTTP method and path, and the
 * decorators of its route options.
 */
export function defineHandler(
  controller: Type,
  route: RouteDefinition,
  implementation: Handler,
  parameters: ParameterDecorator[],
): void {
  defineMethod(controller, route.handler, implementation);
  const prototype = controller.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler)!;
  parameters.forEach((decorate, index) => decorate(prototype, route.handler, index));
  // POST searches read data: 200, not Nest's default 201 for POST.
  const status = route.method === 'POST' && route.action !== 'create' ? [HttpCode(200)] : [];
  // First among the route's interceptors: a body that is not JSON never reaches the user's.
  const json = JSON_BODY_ACTIONS.has(route.action) ? [UseInterceptors(JsonBodyInterceptor)] : [];
  for (const decorate of [METHOD_DECORATORS[route.method](route.path), ...status, ...json, ...(route.decorators ?? [])]) {
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
