import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { ModelRoutesExtras, ModelRoutesSettings } from '../interfaces/model-routes-options.interface.js';
import { withModelRoutes } from './model-routes-module.factory.js';
import { MODEL_ROUTES_SETTINGS } from '../constants.js';

/**
 * `forRoot(options)` and `forRootAsync({ ..., useFactory | useClass | useExisting })`, built the
 * way Nest builds its own configurable modules: the settings (search limits) are the module's
 * options, possibly computed by a factory (from `ConfigService`, say); the extras (resources,
 * controllers, route options, connection, scope) are given synchronously, since Nest needs the
 * controllers when the module is declared, and turn the definition into the routes' module.
 */
export const {
  ConfigurableModuleClass: ConfigurableModelRoutesModule,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ModelRoutesSettings>({ moduleName: 'ModelRoutes', optionsInjectionToken: MODEL_ROUTES_SETTINGS })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createModelRoutesSettings')
  .setExtras<ModelRoutesExtras>(
    {
      resources: [],
      controllers: [],
      providers: [],
      imports: [],
      routes: undefined,
      references: undefined,
      files: undefined,
      elements: undefined,
      connectionName: undefined,
      globalErrorFilter: false,
      serializationGroups: undefined,
      version: undefined,
      isGlobal: true,
    } satisfies { [K in keyof Required<ModelRoutesExtras>]: ModelRoutesExtras[K] }, // every extra named, with its default
    (definition, extras) => withModelRoutes(definition, extras),
  )
  .build();
