import { Controller, Delete, Get, HttpCode, Inject, Post, Put, UseFilters, type Type } from '@nestjs/common';
import { ModelRoutesExceptionFilter } from '../errors/model-routes-exception.filter.js';
import type { RouteAction, RouteDefinition } from '../interfaces/route-definition.interface.js';

type Handler = (this: any, ...args: any[]) => unknown;

/** How a generated controller serves one route action: the function and its parameter decorators. */
export interface HandlerSpec<C> {
  handle: (this: C, ...args: any[]) => unknown;
  params: ParameterDecorator[];
}

/** Defines the handler of every route, in route order, from the specs keyed by action. */
export function defineHandlers<C>(controller: Type, routes: RouteDefinition[], specs: Partial<Record<RouteAction, HandlerSpec<C>>>): void {
  for (const route of routes) {
    const spec = specs[route.action];
    if (!spec) throw new Error(`${route.controller}: no handler for route action '${route.action}'`);
    defineHandler(controller, route, spec.handle, spec.params);
  }
}

/**
 * Creates a fresh, named controller class whose constructor stores each injected provider
 * under the given property name. Every failure of its routes goes through the one filter.
 */
export function createControllerClass(name: string, injections: Record<string, string>): Type {
  const properties = Object.keys(injections);
  const generated = {
    [name]: class {
      constructor(...dependencies: unknown[]) {
        properties.forEach((property, index) => {
          (this as Record<string, unknown>)[property] = dependencies[index];
        });
      }
    },
  }[name];
  properties.forEach((property, index) => Inject(injections[property])(generated, undefined as never, index));
  Controller()(generated);
  UseFilters(ModelRoutesExceptionFilter)(generated);
  return generated;
}

const METHOD_DECORATORS = { GET: Get, POST: Post, PUT: Put, DELETE: Delete };

/**
 * Defines one route handler on a generated controller: a new function object per class (route
 * metadata lives on the function, so sharing one would leak decorators between controllers),
 * named after the route, with its parameter decorators and its HTTP method and path.
 */
export function defineHandler(
  controller: Type,
  route: RouteDefinition,
  implementation: Handler,
  parameters: ParameterDecorator[],
  decorators: MethodDecorator[] = [],
): void {
  const prototype = controller.prototype;
  const handler = {
    [route.handler](this: unknown, ...args: unknown[]) {
      return implementation.apply(this, args);
    },
  }[route.handler];
  Object.defineProperty(prototype, route.handler, { value: handler, writable: true, configurable: true });
  const descriptor = Object.getOwnPropertyDescriptor(prototype, route.handler)!;
  parameters.forEach((decorate, index) => decorate(prototype, route.handler, index));
  // POST searches read data: 200, not Nest's default 201 for POST.
  const status = route.method === 'POST' && route.action !== 'create' ? [HttpCode(200)] : [];
  for (const decorate of [METHOD_DECORATORS[route.method](route.path), ...status, ...decorators]) {
    decorate(prototype, route.handler, descriptor);
  }
}
