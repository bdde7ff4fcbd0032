import { Get, Post, RequestMethod, Version } from '@nestjs/common';
import type { RouteMethod } from '../interfaces/route-definition.interface.js';
import type { RouteVersion } from '../interfaces/route-options.interface.js';

/**
 * Reads and rewrites the route of a handler that user code decorated with `@Get('stats')` & co.
 * Nest keeps a route's path and method as metadata on the handler function under keys that are
 * not public API; rather than importing them from Nest's internals, we find them once by
 * decorating two probe functions with the public `@Get` and `@Post` decorators.
 */
const keys = (() => {
  const probe = { get() {}, post() {} };
  Get('__probe__')(probe, 'get', Object.getOwnPropertyDescriptor(probe, 'get')!);
  Post('__probe__')(probe, 'post', Object.getOwnPropertyDescriptor(probe, 'post')!);
  const all = Reflect.getOwnMetadataKeys(probe.get);
  const path = all.find((key) => Reflect.getOwnMetadata(key, probe.get) === '__probe__');
  const method = all.find(
    (key) => Reflect.getOwnMetadata(key, probe.get) === RequestMethod.GET && Reflect.getOwnMetadata(key, probe.post) === RequestMethod.POST,
  );
  const versioned = { get() {} };
  Version('__probe__')(versioned, 'get', Object.getOwnPropertyDescriptor(versioned, 'get')!);
  const version = Reflect.getOwnMetadataKeys(versioned.get).find((key) => Reflect.getOwnMetadata(key, versioned.get) === '__probe__');
  if (path === undefined || method === undefined || version === undefined) throw new Error('nestjs-model-routes: cannot read Nest route metadata');
  return { path, method, version };
})();

const METHODS: Partial<Record<number, RouteMethod>> = {
  [RequestMethod.GET]: 'GET',
  [RequestMethod.POST]: 'POST',
  [RequestMethod.PUT]: 'PUT',
  [RequestMethod.DELETE]: 'DELETE',
  [RequestMethod.PATCH]: 'PATCH',
  [RequestMethod.ALL]: 'ALL',
  [RequestMethod.OPTIONS]: 'OPTIONS',
  [RequestMethod.HEAD]: 'HEAD',
};

/** The method and path(s) of a route handler, or undefined for a plain method. */
export function readRoute(handler: Function): { method: RouteMethod; paths: string[] } | undefined {
  const path = Reflect.getOwnMetadata(keys.path, handler) as string | string[] | undefined;
  const method = Reflect.getOwnMetadata(keys.method, handler) as number | undefined;
  if (path === undefined || method === undefined) return undefined;
  return { method: METHODS[method] ?? 'ALL', paths: Array.isArray(path) ? path : [path] };
}

/** Copies every piece of metadata of `from` (guards, pipes, Swagger...) onto `to`, then sets its path. */
export function copyRouteMetadata(from: Function, to: Function, path: string | string[]): void {
  for (const key of Reflect.getOwnMetadataKeys(from)) {
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, from), to);
  }
  Reflect.defineMetadata(keys.path, path, to);
}

/** The path given to `@Controller()` on a class, if any. */
export function readControllerPath(controller: Function): string | string[] | undefined {
  return Reflect.getOwnMetadata(keys.path, controller) as string | string[] | undefined;
}

/**
 * The version `@Version()` gives a handler, else the one `@Controller({ version })` gives its class
 * (or a class it extends), if any.
 */
export function readVersion(handler: Function, controller?: Function): RouteVersion | undefined {
  return (Reflect.getOwnMetadata(keys.version, handler) ?? (controller && Reflect.getMetadata(keys.version, controller))) as RouteVersion | undefined;
}
