import type { Type } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { generatedResourceOf } from '../controllers/generated-controller.js';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { createResourceDefinitions } from '../definitions/resource-definition.factory.js';
import { readControllerPath } from './route-metadata.util.js';
import { createRouteTable } from './route-table.factory.js';
import type { ModelRoutesModuleOptions } from '../interfaces/model-routes-options.interface.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';

/** What the options of one `forRoot` describe, before Nest builds anything: resources, user controllers, routes. */
export interface ModelRoutesPlan {
  definitions: ResourceDefinition[];
  /** The user's controller of each resource that has one, by resource name. */
  userControllers: ReadonlyMap<string, Type>;
  table: RouteDefinition[];
}

/**
 * Reads the resources' metadata and schemas, the user's controllers and the route options into
 * the route table: synchronous and pure, so that tooling can print the routes without a server.
 * Every configuration error is thrown here, naming the class and the fix.
 */
export function planModelRoutes(options: ModelRoutesModuleOptions): ModelRoutesPlan {
  const definitions = createResourceDefinitions(options);
  const userControllers = byResource(options.controllers ?? [], definitions, options.connectionName);
  const table = createRouteTable(definitions, {
    controllers: userControllers,
    routes: options.routes,
    references: options.references,
    files: options.files,
    elements: options.elements,
  });
  return { definitions, userControllers, table };
}

/** Maps each user controller to its resource, refusing what cannot work. */
function byResource(classes: Type[], definitions: ResourceDefinition[], connectionName: string | undefined): Map<string, Type> {
  const controllers = new Map<string, Type>();
  for (const controller of classes) {
    const base = generatedResourceOf(controller);
    const resource = base?.resource;
    const definition = definitions.find((candidate) => candidate.target === resource);
    const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_CONTROLLER', `${controller.name}: ${message}`);
    if (!base || !resource) throw invalid('it does not extend GeneratedController(<resource>). Write `class X extends GeneratedController(Company)`.');
    if (!definition) throw invalid(`it extends GeneratedController(${resource.name}), but ${resource.name} is not in forRoot({ resources }).`);
    if (getConnectionToken(base.connectionName) !== getConnectionToken(connectionName)) {
      const given = base.connectionName ? `'${base.connectionName}'` : 'the default connection';
      throw invalid(
        `it extends GeneratedController(${resource.name}) on ${given}, but is registered with connectionName ` +
          `${connectionName ? `'${connectionName}'` : '(the default)'}. ` +
          `Write \`extends GeneratedController(${resource.name}${connectionName ? `, '${connectionName}'` : ''})\`.`,
      );
    }
    const path = readControllerPath(controller);
    if (path !== undefined && path !== '' && path !== '/') {
      throw invalid(`its routes live under /${definition.path}; remove the path '${String(path)}' from @Controller().`);
    }
    const previous = controllers.get(definition.name);
    if (previous) throw invalid(`${previous.name} already extends the controller of ${definition.name}; merge the two classes.`);
    controllers.set(definition.name, controller);
  }
  return controllers;
}
