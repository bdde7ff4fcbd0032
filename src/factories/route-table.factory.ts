import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition, RouteMethod } from '../interfaces/route-definition.interface.js';
import { pascalCase } from '../utils/naming.util.js';

/**
 * Builds the route table: every generated route as data, ordered so that at the first
 * segment where two paths differ, a literal segment comes before a `:param` segment.
 * Controllers are then built from this table, in this order.
 */
export function createRouteTable(definitions: ResourceDefinition[]): RouteDefinition[] {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  const routes = definitions.flatMap((definition) => [
    ...resourceRoutes(definition),
    ...definition.references
      .filter((reference) => !reference.isArray)
      .flatMap((reference) => referenceRoutes(definition, reference.field, byName.get(reference.targetName)!)),
  ]);
  return sortRoutes(routes);
}

/** Name of the controller class generated for a resource: `CompanyController`. */
export function resourceControllerName(definition: ResourceDefinition): string {
  return `${definition.name}Controller`;
}

/** Name of the controller class generated for a reference field: `CompanyOwnerReferenceController`. */
export function referenceControllerName(definition: ResourceDefinition, field: string): string {
  return `${definition.name}${pascalCase(field)}ReferenceController`;
}

function resourceRoutes(definition: ResourceDefinition): RouteDefinition[] {
  const one = `/${definition.path}/:${definition.idParam}`;
  const route = (action: RouteDefinition['action'], method: RouteMethod, path: string): RouteDefinition => ({
    action,
    method,
    path,
    resource: definition.name,
    controller: resourceControllerName(definition),
    handler: action,
  });
  return [
    route('findOne', 'GET', one),
    route('create', 'POST', `/${definition.path}`),
    route('update', 'PUT', one),
    route('delete', 'DELETE', one),
    route('search', 'GET', `/${definition.plural}`),
    route('searchPost', 'POST', `/${definition.plural}`),
  ];
}

function referenceRoutes(source: ResourceDefinition, field: string, target: ResourceDefinition): RouteDefinition[] {
  const controller = referenceControllerName(source, field);
  const reference = { source: source.name, field, target: target.name };
  const Field = pascalCase(field);
  const reverse = `/${target.path}/:${target.idParam}/${source.plural}/${field}`;
  return [
    {
      action: 'referenceFind',
      method: 'GET',
      path: `/${source.path}/:${source.idParam}/${field}`,
      resource: target.name,
      controller,
      handler: `find${Field}`,
      reference,
    },
    { action: 'referenceSearch', method: 'GET', path: reverse, resource: source.name, controller, handler: `searchBy${Field}`, reference },
    { action: 'referenceSearchPost', method: 'POST', path: reverse, resource: source.name, controller, handler: `searchBy${Field}Post`, reference },
  ];
}

const METHOD_ORDER: Record<RouteMethod, number> = { GET: 0, POST: 1, PUT: 2, DELETE: 3 };

/** Literal segments before `:param` segments; a stable sort keeps declaration order otherwise. */
export function sortRoutes<T extends Pick<RouteDefinition, 'path' | 'method'>>(routes: T[]): T[] {
  return [...routes].sort((a, b) => comparePaths(a.path, b.path) || METHOD_ORDER[a.method] - METHOD_ORDER[b.method]);
}

export function comparePaths(a: string, b: string): number {
  const left = a.split('/').filter(Boolean);
  const right = b.split('/').filter(Boolean);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const leftParam = left[i].startsWith(':');
    const rightParam = right[i].startsWith(':');
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
    if (!leftParam && left[i] !== right[i]) return left[i] < right[i] ? -1 : 1;
  }
  return left.length - right.length;
}
