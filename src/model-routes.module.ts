import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { MongooseModule } from '@nestjs/mongoose';
import { MODEL_ROUTES_OPTIONS } from './constants.js';
import { ModelRoutesExceptionFilter } from './errors/model-routes-exception.filter.js';
import { createControllers } from './factories/controllers.factory.js';
import { createResourceDefinitions } from './factories/resource-definition.factory.js';
import { createRouteTable } from './factories/route-table.factory.js';
import type { ModelRoutesModuleOptions } from './interfaces/model-routes-options.interface.js';
import type { RouteDefinition } from './interfaces/route-definition.interface.js';
import { createRepositoryProviders, getRepositoryToken } from './repository/model-repository.providers.js';

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
   * exported globally: inject it with `@InjectRepository(Resource)`.
   */
  static forRoot(options: ModelRoutesModuleOptions): DynamicModule {
    const definitions = createResourceDefinitions(options);
    const table = createRouteTable(definitions);
    const repositories = createRepositoryProviders(definitions, options.connectionName);
    return {
      module: ModelRoutesModule,
      global: true,
      imports: [
        MongooseModule.forFeature(
          definitions.map((definition) => ({ name: definition.name, schema: definition.schema })),
          options.connectionName,
        ),
      ],
      controllers: createControllers(definitions, table, options.connectionName),
      providers: [
        { provide: MODEL_ROUTES_OPTIONS, useValue: { ...options, routes: table } },
        ModelRoutesExceptionFilter,
        ...(options.globalErrorFilter === false ? [] : [{ provide: APP_FILTER, useClass: ModelRoutesExceptionFilter }]),
        ...repositories,
        { provide: RouteTableLogger, useFactory: () => new RouteTableLogger(table) },
      ],
      exports: definitions.map((definition) => getRepositoryToken(definition.name, options.connectionName)),
    };
  }
}

/** Logs the generated routes once, as one readable table, when the module starts. */
class RouteTableLogger {
  constructor(private readonly table: RouteDefinition[]) {}

  onModuleInit(): void {
    const width = Math.max(...this.table.map((route) => route.path.length));
    const lines = this.table.map(
      (route) => `${route.method.padEnd(6)} ${route.path.padEnd(width)}  ${route.controller}.${route.handler}`,
    );
    new Logger('ModelRoutes').log(`${this.table.length} generated routes:\n${lines.join('\n')}`);
  }
}
