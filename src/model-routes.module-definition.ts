import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { ModelRoutesExtras, ModelRoutesSettings } from './interfaces/model-routes-options.interface.js';

/**
 * `forRoot(options)` and `forRootAsync({ ..., useFactory | useClass | useExisting })`, built the
 * way Nest builds its own configurable modules. The extras (resources, controllers, route
 * options, connection) are always given synchronously, since Nest needs controllers when the
 * module is defined; the settings (search limits) may come from `ConfigService`.
 */
export const {
  ConfigurableModuleClass: ConfigurableModelRoutesModule,
  MODULE_OPTIONS_TOKEN: MODEL_ROUTES_SETTINGS,
  OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<ModelRoutesSettings>({ moduleName: 'ModelRoutes' })
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
      connectionName: undefined,
      globalErrorFilter: true,
    },
    (definition) => definition,
  )
  .build();
