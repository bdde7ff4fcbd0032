import type { Type } from '@nestjs/common';
import type { ElementFieldDefinition, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { RouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';
import { actionsOf, ROUTE_ACTIONS, routeAction, type RouteNames } from '../metadata/route-actions.js';
import type {
  ElementRoutesOptions,
  FileRoutesOptions,
  ReferenceRoutesOptions,
  ResourceRoutesOptions,
  RouteVersion,
} from '../interfaces/route-options.interface.js';
import type { FileFieldDefinition } from '../files/file-options.js';
import { pascalCase } from '../utils/naming.util.js';
import { readRoute, readVersion } from './route-metadata.util.js';
import { resolveRoute } from '../definitions/route-options.util.js';

/** What, besides the resources, decides the routes. */
export interface RouteTableOptions {
  /** The user's controller of a resource, by resource name. */
  controllers?: ReadonlyMap<string, Type>;
  /** `forRoot({ routes })`: defaults for every resource. */
  routes?: ResourceRoutesOptions;
  /** `forRoot({ references })`: defaults for every reference field. */
  references?: ReferenceRoutesOptions;
  /** `forRoot({ files })`: defaults for every file field. */
  files?: FileRoutesOptions;
  /** `forRoot({ elements })`: defaults for every array of sub-documents. */
  elements?: ElementRoutesOptions;
}

/**
 * Builds the route table: every route as data, generated and custom, without the disabled ones,
 * ordered so that at the first segment where two paths differ, a literal segment comes before a
 * `:param` segment (`/company/stats` before `/company/:company_id`). Controllers are then built
 * from this table, in this order, whatever the order their methods were declared in.
 */
export function createRouteTable(definitions: ResourceDefinition[], options: RouteTableOptions = {}): RouteDefinition[] {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const routes = definitions.flatMap((definition) => [
    ...resourceRoutes(definition, options),
    ...definition.references.flatMap((reference) =>
      referenceRoutes(definition, reference.field, referenceTarget(byName, reference.targetName), reference.isArray, options),
    ),
    ...definition.files.flatMap((file) => fileRoutes(definition, file, options)),
    ...definition.elements.flatMap((element) => elementRoutes(definition, element, options)),
  ]);
  const enabled = routes
    .filter((row) => row.enabled !== false)
    .map(({ enabled: _enabled, decorators, ...route }) => (decorators?.length ? { ...route, decorators } : route));
  return sortRoutes(enabled);
}

/** Name of the controller class of a resource: `CompanyController`, or the user's class name. */
export function resourceControllerName(definition: ResourceDefinition, options: RouteTableOptions = {}): string {
  return options.controllers?.get(definition.name)?.name ?? `${definition.name}Controller`;
}

/** Name of the controller class generated for a file field: `CompanyLogoFileController`. */
export function fileControllerName(definition: Pick<ResourceDefinition, 'name'>, field: string): string {
  return `${definition.name}${pascalCase(field)}FileController`;
}

/** What the paths and texts of a file field's routes are made of: a gallery's have a `:file_id`. */
export function fileRouteNames(
  source: Pick<ResourceDefinition, 'name' | 'path' | 'plural' | 'idParam'>,
  file: Pick<FileFieldDefinition, 'field' | 'gallery'>,
): RouteNames {
  const fileParam = source.idParam === 'file_id' ? 'stored_file_id' : 'file_id';
  return { source, field: file.field, ...(file.gallery && { fileParam }) };
}

/** Name of the controller class generated for the elements of an array of sub-documents: `PetVaccinationsElementController`. */
export function elementControllerName(definition: Pick<ResourceDefinition, 'name'>, field: string): string {
  return `${definition.name}${pascalCase(field)}ElementController`;
}

/** What the paths and texts of an array's element routes are made of: `:element_id` (`:item_id` where the resource's is `element_id`). */
export function elementRouteNames(source: Pick<ResourceDefinition, 'name' | 'path' | 'plural' | 'idParam'>, field: string): RouteNames {
  return { source, field, elementParam: source.idParam === 'element_id' ? 'item_id' : 'element_id' };
}

/** Name of the controller class generated for a reference field: `CompanyOwnerReferenceController`. */
export function referenceControllerName(definition: ResourceDefinition, field: string): string {
  return `${definition.name}${pascalCase(field)}ReferenceController`;
}

type TableRow = RouteDefinition & { enabled?: boolean };

/**
 * What a reference field leads to: a resource (its definition, with a path and views of its own),
 * or a model that is not a resource, known by its name only.
 */
export type ReferenceTarget = Pick<ResourceDefinition, 'name'> & Partial<Pick<ResourceDefinition, 'path' | 'idParam' | 'serialization'>>;

/** The target of a reference to the model `name`: its resource's definition, else its name only. */
export function referenceTarget(resources: ReadonlyMap<string, ReferenceTarget>, name: string): ReferenceTarget {
  return resources.get(name) ?? { name };
}

/** Whether a reference's target is a resource: it has a path, so reverse routes can live under it. */
export function isResourceTarget(target: ReferenceTarget): target is ReferenceTarget & Pick<ResourceDefinition, 'path' | 'idParam'> {
  return target.path !== undefined && target.idParam !== undefined;
}

/** What a resource's paths and texts are made of (`RouteNames`), with its reference field and target when given. */
export function routeNames(
  source: Pick<ResourceDefinition, 'name' | 'path' | 'plural' | 'idParam'>,
  reference?: { field: string; target: ReferenceTarget },
): RouteNames {
  if (!reference) return { source };
  const { field, target } = reference;
  if (!isResourceTarget(target)) return { source, field, target: { name: target.name } };
  return { source, field, target, relatedParam: relatedParam(source, target) };
}

function resourceRoutes(definition: ResourceDefinition, options: RouteTableOptions): TableRow[] {
  const controller = resourceControllerName(definition, options);
  const custom = customRoutes(definition, options.controllers?.get(definition.name), controller);
  const taken = new Set(custom.map((route) => route.handler));
  const names = routeNames(definition);
  const generated = actionsOf('resource')
    .filter((action) => {
      const feature = routeAction(action).feature;
      return !feature || definition[feature] !== undefined;
    })
    .map((action): TableRow => {
      const { enabled, decorators, readPreference, version } = resolveRoute(action, definition.routes, options.routes);
      const { method, path } = ROUTE_ACTIONS[action];
      return {
        action,
        method,
        path: path(names),
        resource: definition.name,
        controller,
        handler: action,
        decorators,
        enabled,
        ...(readPreference && { readPreference }),
        ...versionOf(version, definition),
      };
    });
  // A handler the user decorated with a route of its own replaces the generated route of that name.
  return [...generated.filter((row) => !taken.has(row.handler)), ...custom];
}

/** The routes the user declared on a class that extends `GeneratedController(...)`. */
function customRoutes(definition: ResourceDefinition, controller: Type | undefined, name: string): TableRow[] {
  const rows: TableRow[] = [];
  const seen = new Set<string>();
  for (let proto = controller?.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const handler of Object.getOwnPropertyNames(proto)) {
      const value = Object.getOwnPropertyDescriptor(proto, handler)?.value;
      if (handler === 'constructor' || seen.has(handler) || typeof value !== 'function') continue;
      seen.add(handler);
      const route = readRoute(value);
      if (!route) continue;
      const version = readVersion(value, controller);
      for (const path of route.paths) {
        rows.push({
          action: 'custom',
          method: route.method,
          path: underResource(definition, path),
          resource: definition.name,
          controller: name,
          handler,
          ...versionOf(version, definition),
        });
      }
    }
  }
  return rows;
}

/** `stats` → `/company/stats`; `''` and `'/'` (what `@Get()` stores) → `/company`; `/anything` stays as it is. */
export function underResource(definition: Pick<ResourceDefinition, 'path'>, path: string): string {
  if (path === '/') return `/${definition.path}`;
  if (path.startsWith('/')) return path;
  return `/${definition.path}/${path}`.replace(/\/+$/, '');
}

function referenceRoutes(source: ResourceDefinition, field: string, target: ReferenceTarget, isArray: boolean, options: RouteTableOptions): TableRow[] {
  const controller = referenceControllerName(source, field);
  const targetName = target.name;
  const reference = { source: source.name, field, target: targetName };
  const names = routeNames(source, { field, target });
  // A model that is not a resource has no path of its own: no routes under it.
  const applies = { isArray, targetIsResource: isResourceTarget(target) };
  return actionsOf('reference')
    .filter((action) => routeAction(action).appliesTo?.(applies) ?? true)
    .map((action): TableRow => {
      const row = routeAction(action);
      const { enabled, decorators, readPreference, version } = resolveRoute(action, source.referenceRoutes?.[field], options.references);
      const resource = row.answers.of === 'target' ? targetName : source.name;
      return {
        action,
        method: row.method,
        path: row.path(names),
        resource,
        controller,
        handler: action,
        reference,
        decorators,
        enabled,
        ...(readPreference && { readPreference }),
        ...versionOf(version, source),
      };
    });
}

function fileRoutes(source: ResourceDefinition, file: FileFieldDefinition, options: RouteTableOptions): TableRow[] {
  const controller = fileControllerName(source, file.field);
  const names = fileRouteNames(source, file);
  return actionsOf('file')
    .filter((action) => routeAction(action).appliesTo?.({ isArray: file.gallery, targetIsResource: true }) ?? true)
    .map((action): TableRow => {
      const row = routeAction(action);
      const { enabled, decorators, readPreference, version } = resolveRoute(action, source.fileRoutes?.[file.field], options.files);
      return {
        action,
        method: row.method,
        path: row.path(names),
        resource: source.name,
        controller,
        handler: action,
        file: { source: source.name, field: file.field },
        decorators,
        enabled,
        ...(readPreference && { readPreference }),
        ...versionOf(version, source),
      };
    });
}

function elementRoutes(source: ResourceDefinition, element: ElementFieldDefinition, options: RouteTableOptions): TableRow[] {
  const controller = elementControllerName(source, element.field);
  const names = elementRouteNames(source, element.field);
  // One element is answered without the class's views (`@Expose({ groups })`), which shape documents: no such route where there are views.
  const actions = actionsOf('element').filter((action) => routeAction(action).answers.shape !== 'element' || !source.serialization);
  return actions.map((action): TableRow => {
    const row = routeAction(action);
    const { enabled, decorators, version } = resolveRoute(action, source.elementRoutes?.[element.field], options.elements);
    return {
      action,
      method: row.method,
      path: row.path(names),
      resource: source.name,
      controller,
      handler: action,
      element: { source: source.name, field: element.field },
      decorators,
      enabled,
      ...versionOf(version, source),
    };
  });
}

/** A row's `version`: the route's own, else its resource's (which holds `forRoot`'s); none when neither gives one. */
function versionOf(own: RouteVersion | undefined, definition: Pick<ResourceDefinition, 'version'>): { version?: RouteVersion } {
  const version = own ?? definition.version;
  return version === undefined ? {} : { version };
}

/** The referenced document's parameter: `user_id`, or `related_id` when the source already uses that name. */
export function relatedParam(source: Pick<ResourceDefinition, 'idParam'>, target: Pick<ResourceDefinition, 'idParam'>): string {
  return target.idParam === source.idParam ? 'related_id' : target.idParam;
}

const METHOD_ORDER: Record<RouteMethod, number> = { GET: 0, HEAD: 1, POST: 2, PUT: 3, PATCH: 4, DELETE: 5, OPTIONS: 6, ALL: 7 };

/** Literal segments before `:param` segments; a stable sort keeps declaration order otherwise. */
export function sortRoutes<T extends Pick<RouteDefinition, 'path' | 'method'>>(routes: T[]): T[] {
  return [...routes].sort((a, b) => comparePaths(a.path, b.path) || METHOD_ORDER[a.method] - METHOD_ORDER[b.method]);
}

export function comparePaths(a: string, b: string): number {
  const left = a.split('/').filter(Boolean);
  const right = b.split('/').filter(Boolean);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const leftParam = /^[:*]/.test(left[i]);
    const rightParam = /^[:*]/.test(right[i]);
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
    if (!leftParam && left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}
