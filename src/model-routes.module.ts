import { Logger, Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { MODEL_ROUTES_TABLE } from './constants.js';
import { generatedResourceOf } from './controllers/generated-controller.js';
import { ModelRoutesConfigError } from './errors/model-routes-config.error.js';
import { ModelRoutesExceptionFilter } from './errors/model-routes-exception.filter.js';
import { createControllers } from './factories/controllers.factory.js';
import { applySearchSettings, createResourceDefinitions } from './factories/resource-definition.factory.js';
import { readControllerPath } from './factories/route-metadata.util.js';
import { createRouteTable } from './factories/route-table.factory.js';
import type {
  ModelRoutesExtras,
  ModelRoutesModuleOptions,
  ModelRoutesSettings,
} from './interfaces/model-routes-options.interface.js';
import type { ResourceDefinition } from './interfaces/resource-definition.interface.js';
import type { RouteDefinition } from './interfaces/route-definition.interface.js';
import {
  ASYNC_OPTIONS_TYPE,
  ConfigurableModelRoutesModule,
  MODEL_ROUTES_SETTINGS,
} from './model-routes.module-definition.js';
import { createRepositoryProviders, getModelRepositoryToken } from './repository/model-repository.providers.js';

/** Options of `ModelRoutesModule.forRootAsync()`: the extras, and a factory for the settings. */
export type ModelRoutesModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE & ModelRoutesExtras;

export { MODEL_ROUTES_TABLE };

/** Injection token of what the module built: definitions, route table and controller classes (for OpenAPI). */
export const MODEL_ROUTES_METADATA = 'MODEL_ROUTES_METADATA';

/** What `MODEL_ROUTES_METADATA` holds. */
export interface ModelRoutesMetadata {
  definitions: ResourceDefinition[];
  table: RouteDefinition[];
  /** The controller classes Nest serves, by name (as in the route table). */
  controllers: ReadonlyMap<string, Type>;
}

/**
 * Generates REST routes for Mongoose models decorated with `@GeneratedResource()`.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     MongooseModule.forRoot(process.env.MONGODB_URI),
 *     ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 */
@Module({})
export class ModelRoutesModule {
  /**
   * Reads the resources' metadata and schemas, registers their Mongoose models, and builds one
   * controller per resource and per reference field. Each resource's `ModelRepository` is
   * exported globally: inject it with `@InjectModelRepository(Resource)`.
   */
  static forRoot(options: ModelRoutesModuleOptions): DynamicModule {
    const module = ConfigurableModelRoutesModule.forRoot(options);
    return withRoutes({ ...module, imports: [...(module.imports ?? []), ...(options.imports ?? [])] }, options);
  }

  /**
   * As `forRoot`, with the settings (search limits) computed by `useFactory`, `useClass` or
   * `useExisting`. The resources, controllers and route options stay synchronous: Nest needs
   * the controllers when the module is defined.
   */
  static forRootAsync(options: ModelRoutesModuleAsyncOptions): DynamicModule {
    return withRoutes(ConfigurableModelRoutesModule.forRootAsync(options), options);
  }
}

function withRoutes(module: DynamicModule, options: ModelRoutesExtras): DynamicModule {
  const definitions = createResourceDefinitions(options);
  const controllers = userControllers(options.controllers ?? [], definitions);
  const table = createRouteTable(definitions, { controllers, routes: options.routes, references: options.references });
  const { connectionName } = options;
  const served = createControllers(definitions, table, controllers, connectionName);
  return {
    ...module,
    module: ModelRoutesModule,
    global: true,
    imports: [
      ...(module.imports ?? []),
      MongooseModule.forFeature(
        definitions.map((definition) => ({ name: definition.name, schema: definition.schema })),
        connectionName,
      ),
    ],
    controllers: served,
    providers: [
      ...(module.providers ?? []),
      { provide: MODEL_ROUTES_TABLE, useValue: table },
      {
        provide: MODEL_ROUTES_METADATA,
        useValue: { definitions, table, controllers: new Map(served.map((controller) => [controller.name, controller])) } satisfies ModelRoutesMetadata,
      },
      {
        provide: RouteTableLogger,
        useFactory: (settings: ModelRoutesSettings) => {
          applySearchSettings(definitions, settings.search);
          return new RouteTableLogger(table);
        },
        inject: [MODEL_ROUTES_SETTINGS],
      },
      ModelRoutesExceptionFilter,
      ...(options.globalErrorFilter === false ? [] : [{ provide: APP_FILTER, useClass: ModelRoutesExceptionFilter }]),
      ...createRepositoryProviders(definitions, connectionName),
      ...(options.providers ?? []),
    ],
    exports: [MODEL_ROUTES_TABLE, MODEL_ROUTES_METADATA, ...definitions.map((definition) => getModelRepositoryToken(definition.name, connectionName))],
  };
}

/** Maps each user controller to its resource, refusing what cannot work. */
function userControllers(classes: Type[], definitions: ResourceDefinition[]): Map<string, Type> {
  const byResource = new Map<string, Type>();
  for (const controller of classes) {
    const resource = generatedResourceOf(controller);
    const definition = definitions.find((candidate) => candidate.target === resource);
    const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_CONTROLLER', `${controller.name}: ${message}`);
    if (!resource) throw invalid('it does not extend GeneratedController(<resource>). Write `class X extends GeneratedController(Company)`.');
    if (!definition) throw invalid(`it extends GeneratedController(${resource.name}), but ${resource.name} is not in forRoot({ resources }).`);
    const path = readControllerPath(controller);
    if (path !== undefined && path !== '' && path !== '/') {
      throw invalid(`its routes live under /${definition.path}; remove the path '${String(path)}' from @Controller().`);
    }
    const previous = byResource.get(definition.name);
    if (previous) throw invalid(`${previous.name} already extends the controller of ${definition.name}; merge the two classes.`);
    byResource.set(definition.name, controller);
  }
  return byResource;
}

/** Logs the routes once, as one readable table, when the module starts. */
class RouteTableLogger {
  constructor(private readonly table: RouteDefinition[]) {}

  onModuleInit(): void {
    new Logger('ModelRoutes').log(`${this.table.length} routes:\n${formatRouteTable(this.table)}`);
  }
}

/** The route table as aligned text: method, path, controller and handler. */
export function formatRouteTable(table: RouteDefinition[]): string {
  const width = Math.max(0, ...table.map((route) => route.path.length));
  return table.map((route) => `${route.method.padEnd(6)} ${route.path.padEnd(width)}  ${route.controller}.${route.handler}`).join('\n');
}
