import { ConfigurableModuleBuilder, type DynamicModule } from '@nestjs/common';
import { ApplicationConfig } from '@nestjs/core';
import { BACK_OFFICE, BACK_OFFICE_SETTINGS } from '../constants.js';
import { ModelRoutesExplorer } from '../explorer/model-routes.explorer.js';
import type { BackOfficeExtras, BackOfficeSettings } from './back-office-options.interface.js';
import { backOfficeAppDir, loadBackOfficeAssets } from './back-office-assets.js';
import { createBackOfficeController } from './back-office.controller.factory.js';
import { BackOfficeService } from './back-office.service.js';
import { backOfficeDisplay, backOfficeRoutes } from './back-office-settings.util.js';

/**
 * `forRoot(options)` and `forRootAsync({ ..., useFactory | useClass | useExisting })`, built as
 * `ModelRoutesModule` is: the settings (`title`, `auth`) are the module's options, possibly
 * computed by a factory; the extras (`path`, `guards`) shape the controller, so they are given
 * synchronously and checked when the module is declared.
 */
export const { ConfigurableModuleClass: ConfigurableBackOfficeModule, ASYNC_OPTIONS_TYPE: BACK_OFFICE_ASYNC_OPTIONS_TYPE } =
  new ConfigurableModuleBuilder<BackOfficeSettings>({ moduleName: 'BackOffice', optionsInjectionToken: BACK_OFFICE_SETTINGS })
    .setClassMethodName('forRoot')
    .setFactoryMethodName('createBackOfficeSettings')
    .setExtras<BackOfficeExtras>(
      { path: undefined, guards: undefined } satisfies { [K in keyof Required<BackOfficeExtras>]: undefined },
      (definition, extras) => withBackOffice(definition, extras),
    )
    .build();

/**
 * Completes the module the builder defines (its settings provider) with the controller of the
 * extras' path and guards, the explorer of the app's modules (Nest injects their container), and
 * the service the routes answer from; the settings are checked when the app starts (a bad
 * computed `title` or `auth` fails the boot).
 */
function withBackOffice(module: DynamicModule, extras: BackOfficeExtras): DynamicModule {
  const routes = backOfficeRoutes(extras);
  return {
    ...module,
    controllers: [createBackOfficeController(routes)],
    providers: [
      ...(module.providers ?? []),
      ModelRoutesExplorer,
      {
        provide: BACK_OFFICE,
        useFactory: (settings: BackOfficeSettings | undefined, explorer: ModelRoutesExplorer, config?: ApplicationConfig) =>
          new BackOfficeService({ ...routes, ...backOfficeDisplay(settings) }, loadBackOfficeAssets(backOfficeAppDir()), explorer, config),
        inject: [BACK_OFFICE_SETTINGS, ModelRoutesExplorer, { token: ApplicationConfig, optional: true }],
      },
    ],
  };
}
