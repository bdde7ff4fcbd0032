import { Inject, Logger, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { formatRouteTable, type ModelRoutesRegistration } from './explorer/model-routes.explorer.js';
import { relationAccessWarnings } from './explorer/relation-access.js';
import { MODEL_ROUTES_REGISTRATION } from './constants.js';
import type { ModelRoutesExtras, ModelRoutesModuleOptions } from './interfaces/model-routes-options.interface.js';
import { ASYNC_OPTIONS_TYPE, ConfigurableModelRoutesModule } from './module/model-routes.module-definition.js';

/**
 * Options of `ModelRoutesModule.forRootAsync()`: the extras, and a factory for the settings.
 *
 * @publicApi
 */
export type ModelRoutesModuleAsyncOptions = typeof ASYNC_OPTIONS_TYPE & ModelRoutesExtras;

/** The class `ConfigurableModuleBuilder` built, with `resources` required (the builder makes every extra optional). */
const ConfigurableModule = ConfigurableModelRoutesModule as unknown as {
  new (): object;
  forRoot(options: ModelRoutesModuleOptions): DynamicModule;
  forRootAsync(options: ModelRoutesModuleAsyncOptions): DynamicModule;
};

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
 *
 * @publicApi
 */
@Module({})
export class ModelRoutesModule extends ConfigurableModule implements OnModuleInit {
  constructor(@Inject(MODEL_ROUTES_REGISTRATION) private readonly registration: ModelRoutesRegistration) {
    super();
  }

  /**
   * Reads the resources' metadata and schemas, registers their Mongoose models, and builds one
   * controller per resource and per reference field. Each resource's `ModelRepository` is
   * exported (app-wide unless `isGlobal: false`): inject it with `@InjectModelRepository(Resource)`.
   * Register it once per Mongoose connection.
   */
  static override forRoot(options: ModelRoutesModuleOptions): DynamicModule {
    return super.forRoot(options);
  }

  /**
   * As `forRoot`, with the settings (search limits) computed by `useFactory`, `useClass` or
   * `useExisting`. The resources, controllers and route options stay synchronous: Nest needs
   * the controllers when the module is declared.
   */
  static override forRootAsync(options: ModelRoutesModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }

  /** Logs the routes once, as one readable table, when the module starts; and the references that reach documents past their own guards. */
  onModuleInit(): void {
    const { routes } = this.registration;
    const logger = new Logger('ModelRoutes');
    logger.log(`${routes.length} routes:\n${formatRouteTable(routes)}`);
    for (const warning of relationAccessWarnings(this.registration)) logger.warn(warning);
  }
}
