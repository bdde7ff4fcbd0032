import { RowScopes } from '../scopes/row-scope.js';
import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { APP_FILTER, ApplicationConfig, HttpAdapterHost } from '@nestjs/core';
import { MongooseModule, getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { Admission, resolveAdmissionOptions } from '../concurrency/admission.js';
import { ModelRoutesExceptionFilter, type ErrorFilterScope } from '../filters/model-routes-exception.filter.js';
import { ModelRoutesExplorer, type ModelRoutesRegistration } from '../explorer/model-routes.explorer.js';
import { MODEL_ROUTES_REGISTRATION } from '../constants.js';
import { ImageWork, resolveImageOptions } from '../files/image-work.js';
import { ADMISSION, IMAGE_WORK } from '../constants.js';
import { createControllers } from '../factories/controllers.factory.js';
import { FastifyImports } from '../import/fastify-imports.js';
import { FastifyShedding, routePlansOf } from '../controllers/fastify-shedding.js';
import { ContinueOnRead } from '../filters/continue-on-read.js';
import { resolveResources, type ResolvedResources } from '../definitions/resource-definition.factory.js';
import type { ModelRoutesModuleOptions, ModelRoutesSettings } from '../interfaces/model-routes-options.interface.js';
import { createRepositoryProviders } from './model-repository.providers.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { MODEL_ROUTES_SERIALIZATION } from '../constants.js';
import type { SerializationSettings } from '../serialization/serialization-settings.js';
import { planModelRoutes, type ModelRoutesPlan } from '../routes/model-routes-plan.js';
import { MODEL_ROUTES_RESOURCES, MODEL_ROUTES_SETTINGS } from '../constants.js';

/**
 * Completes the module that `ConfigurableModuleBuilder` defines for `forRoot` / `forRootAsync`
 * (its settings provider) with what the options describe: the models, one controller per
 * resource and per reference field, the repositories, the registration the explorer reads, and
 * the error filter. Runs once per registration, when the app module is declared.
 */
export function withModelRoutes(module: DynamicModule, options: ModelRoutesModuleOptions): DynamicModule {
  const plan = planModelRoutes(options);
  const { connectionName } = options;
  const controllers = createControllers(plan.definitions, plan.table, plan.userControllers, connectionName);
  // The hooks and row scope classes of the resources: providers of this module (so they take services by injection), once each.
  const ruleClasses = [
    ...new Set(
      plan.definitions.flatMap((definition) => [
        ...(definition.hooks ? [definition.hooks] : []),
        ...(RowScopes.isClass(definition.scope) ? [definition.scope] : []),
      ]),
    ),
  ];
  return {
    ...module,
    global: options.isGlobal ?? true,
    imports: [...(module.imports ?? []), ...(options.imports ?? []), modelsModule(plan, connectionName)],
    controllers,
    providers: [
      ...(module.providers ?? []),
      resourcesProvider(plan),
      registrationProvider(plan, controllers, connectionName, options.serializationGroups),
      ModelRoutesExplorer,
      ...errorFilterProviders(options.globalErrorFilter ?? false),
      { provide: MODEL_ROUTES_SERIALIZATION, useValue: { groups: options.serializationGroups } satisfies SerializationSettings },
      {
        provide: IMAGE_WORK,
        useFactory: (settings: ModelRoutesSettings) => new ImageWork(resolveImageOptions(settings.images)),
        inject: [MODEL_ROUTES_SETTINGS],
      },
      admissionProvider(connectionName),
      { provide: ContinueOnRead, useFactory: (host: HttpAdapterHost) => new ContinueOnRead(host), inject: [HttpAdapterHost] },
      {
        provide: FastifyShedding,
        useFactory: (host: HttpAdapterHost, admission: Admission) => new FastifyShedding(host, admission, routePlansOf(controllers)),
        inject: [HttpAdapterHost, ADMISSION],
      },
      ...(plan.table.some((route) => route.action === 'import') ? [FastifyImports] : []),
      ...createRepositoryProviders(plan.definitions, connectionName),
      ...ruleClasses.filter((provider) => !options.providers?.includes(provider)),
      ...(options.providers ?? []),
    ],
    // The hooks and scopes too: the instance the repositories run is the one the application injects.
    exports: [ModelRoutesExplorer, ...plan.definitions.map((definition) => getModelRepositoryToken(definition.name, connectionName)), ...ruleClasses],
  };
}

/** The admission limit of the generated routes, its defaults read from the size of the connection's pool and the search time limit. */
function admissionProvider(connectionName: string | undefined): Provider {
  return {
    provide: ADMISSION,
    useFactory: (settings: ModelRoutesSettings, connection: Connection) =>
      new Admission(resolveAdmissionOptions(settings.admission, poolSizeOf(connection), settings.search?.maxTimeMS)),
    inject: [MODEL_ROUTES_SETTINGS, getConnectionToken(connectionName)],
  };
}

/** The `maxPoolSize` the connection's client resolved (the driver's default when none was given). */
function poolSizeOf(connection: Connection): number | undefined {
  try {
    return connection.getClient()?.options?.maxPoolSize;
  } catch {
    return undefined;
  }
}

/** The resources' Mongoose models, on the registration's connection. */
function modelsModule({ definitions }: ModelRoutesPlan, connectionName: string | undefined): DynamicModule {
  return MongooseModule.forFeature(
    definitions.map((definition) => ({ name: definition.name, schema: definition.modelSchema ?? definition.schema })),
    connectionName,
  );
}

/**
 * The resources with the settings of `forRoot` (or `forRootAsync`'s factory) in force, resolved
 * once per app: what the repositories, the entry guard, the OpenAPI document and the back office read.
 */
function resourcesProvider(plan: ModelRoutesPlan): Provider {
  return {
    provide: MODEL_ROUTES_RESOURCES,
    useFactory: (settings: ModelRoutesSettings): ResolvedResources => resolveResources(plan.definitions, settings),
    inject: [MODEL_ROUTES_SETTINGS],
  };
}

/** What this registration built, its resources as this app serves them. */
function registrationProvider(
  plan: ModelRoutesPlan,
  controllers: Type[],
  connectionName: string | undefined,
  groups: SerializationSettings['groups'],
): Provider {
  return {
    provide: MODEL_ROUTES_REGISTRATION,
    useFactory: ({ resources }: ResolvedResources): ModelRoutesRegistration => ({
      connectionName,
      definitions: resources,
      routes: plan.table,
      controllers: new Map(controllers.map((controller) => [controller.name, controller])),
      ...(groups && { serializationGroups: groups }),
    }),
    inject: [MODEL_ROUTES_RESOURCES],
  };
}

/**
 * The filter of the generated controllers (every failure of theirs, whatever path prefix or
 * version the app adds), and app-wide: for the route table's paths only (what fails before a
 * route is chosen), or for every request with `globalErrorFilter: true`.
 */
function errorFilterProviders(global: boolean): Provider[] {
  const scope: ErrorFilterScope = global ? 'app' : 'routes';
  return [
    ModelRoutesExceptionFilter,
    {
      provide: APP_FILTER,
      useFactory: (adapterHost: HttpAdapterHost, explorer: ModelRoutesExplorer, config?: ApplicationConfig) =>
        new ModelRoutesExceptionFilter(adapterHost, explorer, config, scope),
      inject: [HttpAdapterHost, ModelRoutesExplorer, { token: ApplicationConfig, optional: true }],
    },
  ];
}
