import type { Type } from '@nestjs/common';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type {
  CustomRouteDefinition,
  ElementRouteDefinition,
  FileRouteDefinition,
  ReferenceRouteDefinition,
  ResourceRouteDefinition,
  RouteDefinition,
} from '../interfaces/route-definition.interface.js';
import { createElementController } from './element-controller.factory.js';
import { createFileController } from './file-controller.factory.js';
import { createReferenceController } from './reference-controller.factory.js';
import { createResourceController } from './resource-controller.factory.js';
import { referenceTarget } from '../routes/route-table.factory.js';

/**
 * Builds one controller class per resource and per reference field from the route table,
 * in table order: controllers appear in the order of their first route, handlers in route order.
 */
export function createControllers(
  definitions: ResourceDefinition[],
  table: RouteDefinition[],
  userControllers: ReadonlyMap<string, Type> = new Map(),
  connectionName?: string,
): Type[] {
  const byName = new Map(definitions.map((definition) => [definition.name, definition]));
  // Each controller's routes, by family; controllers in the order of their first route.
  const order: string[] = [];
  const resources = new Map<string, Array<ResourceRouteDefinition | CustomRouteDefinition>>();
  const references = new Map<string, ReferenceRouteDefinition[]>();
  const files = new Map<string, FileRouteDefinition[]>();
  const elements = new Map<string, ElementRouteDefinition[]>();
  const add = <R>(groups: Map<string, R[]>, route: R & { controller: string }) => {
    if (!groups.has(route.controller)) order.push(route.controller);
    groups.set(route.controller, [...(groups.get(route.controller) ?? []), route]);
  };
  for (const route of table) {
    if (route.element) add(elements, route);
    else if (route.file) add(files, route);
    else if (route.reference) add(references, route);
    else add(resources, route);
  }
  return order.map((name) => {
    const elementRoutes = elements.get(name);
    if (elementRoutes) {
      const { element } = elementRoutes[0];
      const definition = byName.get(element.source)!;
      return createElementController(
        definition,
        definition.elements.find((candidate) => candidate.field === element.field)!,
        elementRoutes,
        connectionName,
      );
    }
    const fileRoutes = files.get(name);
    if (fileRoutes) {
      const { file } = fileRoutes[0];
      const definition = byName.get(file.source)!;
      return createFileController(
        definition,
        definition.files.find((candidate) => candidate.field === file.field)!,
        fileRoutes,
        connectionName,
      );
    }
    const referenceRoutes = references.get(name);
    if (referenceRoutes) {
      const { reference } = referenceRoutes[0];
      return createReferenceController(
        byName.get(reference.source)!,
        referenceTarget(byName, reference.target),
        reference.field,
        referenceRoutes,
        connectionName,
      );
    }
    const routes = resources.get(name)!;
    const definition = byName.get(routes[0].resource)!;
    return createResourceController(definition, routes, userControllers.get(definition.name), connectionName);
  });
}
