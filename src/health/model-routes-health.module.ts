import { Module, type DynamicModule } from '@nestjs/common';
import type { ModelRoutesHealthExtras, ModelRoutesHealthOptions } from './health-options.interface.js';
import { healthSettings } from './health-settings.util.js';
import { ConfigurableModelRoutesHealthModule, HEALTH_ASYNC_OPTIONS_TYPE } from './model-routes-health.module-definition.js';

/**
 * Options of `ModelRoutesHealthModule.forRootAsync()`: the extras (`healthPath`, `readyPath`,
 * `connectionName`), and `useFactory` (with `inject` and `imports`), `useClass` or `useExisting`
 * for the settings (`readyTimeoutMS`).
 *
 * @publicApi
 */
export type ModelRoutesHealthModuleAsyncOptions = typeof HEALTH_ASYNC_OPTIONS_TYPE & ModelRoutesHealthExtras;

/** The class `ConfigurableModuleBuilder` built, with the signatures of the module's own methods. */
const ConfigurableModule = ConfigurableModelRoutesHealthModule as unknown as {
  new (): object;
  forRoot(options: ModelRoutesHealthOptions): DynamicModule;
  forRootAsync(options: ModelRoutesHealthModuleAsyncOptions): DynamicModule;
};

/**
 * Opt-in liveness and readiness routes, for an orchestrator's probes (Kubernetes, a load
 * balancer). `GET /health` answers `{ status: 'ok' }` without asking the database; `GET /ready`
 * answers `{ status: 'ok', database: { pingMs } }` when the database answers `ping` within
 * `readyTimeoutMS` (default 1000 ms), else a 503 `MR_DATABASE_UNAVAILABLE` in the library's error
 * shape, within that bound. Nothing is registered unless the app imports it.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     MongooseModule.forRoot(process.env.MONGODB_URI),
 *     ModelRoutesModule.forRoot({ resources: [Company] }),
 *     ModelRoutesHealthModule.forRoot({ readyTimeoutMS: 500 }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 *
 * @publicApi
 */
@Module({})
export class ModelRoutesHealthModule extends ConfigurableModule {
  /**
   * The two routes, on the default connection or on `connectionName`. Register it once per
   * connection to probe, each with its own paths. Throws a `ModelRoutesConfigError`
   * (`MR_CONFIG_INVALID_OPTION`) for a path that is not literal or a timeout that is not a
   * positive whole number.
   */
  static override forRoot(options: ModelRoutesHealthOptions = {}): DynamicModule {
    healthSettings(options); // every option checked here, where the app declares the module
    return super.forRoot(options);
  }

  /**
   * As `forRoot`, with the settings (`readyTimeoutMS`) computed by `useFactory`, `useClass` or
   * `useExisting` when the app starts. The paths and the connection stay synchronous: Nest needs
   * the controller when the module is declared. A path that is not literal throws here; a computed
   * setting it cannot use fails the app's start with the same `ModelRoutesConfigError`.
   */
  static override forRootAsync(options: ModelRoutesHealthModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }
}
