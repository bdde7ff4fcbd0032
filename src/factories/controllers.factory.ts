import type { Type } from '@nestjs/common';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { createElementController } from './element-controller.factory.js';
import { createFileController } from './file-controller.factory.js';
import { createReferenceController } from './reference-controller.factory.js';
import { createResourceController } from './resource-controller.factory.js';

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
  const groups = new Map<string, RouteDefinition[]>();
  for (const route of table) {
    const group = groups.get(route.controller) ?? [];
    group.push(route);
    groups.set(route.controller, group);
  }
  return [...groups.values()].map((routes) => {
    const { reference, file, element } = routes[0];
    if (element) {
      const definition = byName.get(element.source)!;
      return createElementController(definition, definition.elements.find((candidate) => candidate.field === element.field)!, routes, connectionName);
    }
    if (file) {
      const definition = byName.get(file.source)!;
      return createFileController(definition, definition.files.find((candidate) => candidate.field === file.field)!, routes, connectionName);
    }
    if (!reference) {
      const definition = byName.get(routes[0].resource)!;
      return createResourceController(definition, routes, userControllers.get(definition.name), connectionName);
    }
    return createReferenceController(
      byName.get(reference.source)!,
      byName.get(reference.target) ?? reference.target,
      reference.field,
      routes,
      connectionName,
    );
  });
}
