import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { DATABASE_PROBE, MODEL_ROUTES_HEALTH, MODEL_ROUTES_HEALTH_SETTINGS } from '../constants.js';
import { DatabaseProbe } from './database-probe.js';
import { createHealthController } from './health.controller.factory.js';
import type { ModelRoutesHealthExtras, ModelRoutesHealthSettings } from './health-options.interface.js';
import type { HealthRegistration } from './health.registration.js';
import { healthRoutes, healthTimeouts } from './health-settings.util.js';

/**
 * `forRoot(options)` and `forRootAsync({ ..., useFactory | useClass | useExisting })`, built as
 * `ModelRoutesModule` is: the settings (`readyTimeoutMS`) are the module's options, possibly
 * computed by a factory; the extras (paths, connection) shape the controller, so they are given
 * synchronously and checked when the module is declared.
 */
export const { ConfigurableModuleClass: ConfigurableModelRoutesHealthModule, ASYNC_OPTIONS_TYPE: HEALTH_ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<ModelRoutesHealthSettings>({ moduleName: 'ModelRoutesHealth', optionsInjectionToken: MODEL_ROUTES_HEALTH_SETTINGS })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createModelRoutesHealthSettings')
    .setExtras<ModelRoutesHealthExtras>(
      { healthPath: undefined, readyPath: undefined, connectionName: undefined } satisfies { [K in keyof Required<ModelRoutesHealthExtras>]: undefined },
      (definition, extras) => withHealthRoutes(definition, extras),
    )
    .build();

/**
 * Completes the module the builder defines (its settings provider) with the controller of the
 * extras' paths, the registration the OpenAPI document reads, and the probe of the connection;
 * the settings are checked when the app starts (a bad computed `readyTimeoutMS` fails the boot).
 */
function withHealthRoutes(module: DynamicModule, extras: ModelRoutesHealthExtras): DynamicModule {
  const routes = healthRoutes(extras);
  const controller = createHealthController(routes);
  return {
    ...module,
    controllers: [controller],
    providers: [
      ...(module.providers ?? []),
      {
        provide: MODEL_ROUTES_HEALTH,
        useFactory: (settings: ModelRoutesHealthSettings | undefined): HealthRegistration => ({ ...routes, ...healthTimeouts(settings), controller }),
        inject: [MODEL_ROUTES_HEALTH_SETTINGS],
      },
      {
        provide: DATABASE_PROBE,
        useFactory: (connection: Connection, registration: HealthRegistration) => new DatabaseProbe(connection, registration.readyTimeoutMS),
        inject: [getConnectionToken(routes.connectionName), MODEL_ROUTES_HEALTH],
      },
    ],
  };
}
