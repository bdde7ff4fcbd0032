import { Inject, Module, type DynamicModule, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { BackOfficeExtras, BackOfficeOptions } from './back-office-options.interface.js';
import { PAGE_HEADERS } from './back-office-page.js';
import { BackOfficeService } from './back-office.service.js';
import { BACK_OFFICE } from '../constants.js';
import { backOfficeSettings } from './back-office-settings.util.js';
import { BACK_OFFICE_ASYNC_OPTIONS_TYPE, ConfigurableBackOfficeModule } from './back-office.module-definition.js';

/**
 * Options of `BackOfficeModule.forRootAsync()`: the extras (`path`, `guards`), and `useFactory`
 * (with `inject` and `imports`), `useClass` or `useExisting` for the settings (`title`, `auth`).
 *
 * @publicApi
 */
export type BackOfficeModuleAsyncOptions = typeof BACK_OFFICE_ASYNC_OPTIONS_TYPE & BackOfficeExtras;

/** The class `ConfigurableModuleBuilder` built, with the signatures of the module's own methods. */
const ConfigurableModule = ConfigurableBackOfficeModule as unknown as {
  new (): object;
  forRoot(options: BackOfficeOptions): DynamicModule;
  forRootAsync(options: BackOfficeModuleAsyncOptions): DynamicModule;
};

/** The one Fastify option (top-level, or in `routerOptions`) under which `/admin/` already reaches `/admin`. */
interface FastifyRouting {
  ignoreTrailingSlash?: boolean;
}

/**
 * An admin app on the generated routes, opt-in: `GET /admin` serves a single page that lists,
 * searches, creates, edits and deletes the documents of every resource, follows references both
 * ways and uploads files, through the same routes any client uses (with their guards: the page
 * sends the credentials the user enters in `auth.header`). It reads what to show from
 * `GET /admin/metadata`: the resources, their enabled routes and their fields, hidden fields left
 * out. Its scripts are built with the package and served from memory; nothing comes from a CDN.
 *
 * @example
 * ```ts
 * import { BackOfficeModule } from 'nestjs-model-routes/back-office';
 *
 * @Module({
 *   imports: [
 *     MongooseModule.forRoot(process.env.MONGODB_URI),
 *     ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
 *     BackOfficeModule.forRoot({ path: '/admin', auth: { header: 'x-api-key' }, guards: [AdminGuard] }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 *
 * @publicApi
 */
@Module({})
export class BackOfficeModule extends ConfigurableModule implements OnModuleInit {
  constructor(
    @Inject(BACK_OFFICE) private readonly backOffice: BackOfficeService,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    super();
  }

  /**
   * The page at `path` (default `/admin`, under the app's global prefix), its files at
   * `<path>/assets/:file` and the metadata at `<path>/metadata`, the one route `guards` protect.
   * Throws a `ModelRoutesConfigError` (`MR_CONFIG_INVALID_OPTION`) for an option it cannot use,
   * and, when the app starts, if the browser app is not built or the app has no `ModelRoutesModule`.
   */
  static override forRoot(options: BackOfficeOptions = {}): DynamicModule {
    backOfficeSettings(options); // every option checked here, where the app declares the module
    return super.forRoot(options);
  }

  /**
   * As `forRoot`, with the settings (`title`, `auth`) computed by `useFactory`, `useClass` or
   * `useExisting` when the app starts. `path` and `guards` stay synchronous: Nest needs the
   * controller when the module is declared. An extra it cannot use throws here; a computed setting
   * it cannot use fails the app's start with the same `ModelRoutesConfigError`.
   */
  static override forRootAsync(options: BackOfficeModuleAsyncOptions): DynamicModule {
    return super.forRootAsync(options);
  }

  /**
   * Builds the metadata when the app starts (a missing `ModelRoutesModule` stops the start, not
   * the first request), and serves the page at `<path>/` on Fastify too (after the controllers'
   * routes are registered, before the server is ready).
   */
  onModuleInit(): void {
    this.backOffice.metadata();
    this.serveWithTrailingSlash();
  }

  /**
   * Nest strips the trailing slash of every route path. Express's router matches `/admin/` to
   * `/admin` all the same (`strict` routing is off by default); Fastify's does not, unless the app
   * sets `ignoreTrailingSlash`: there the page gets a second route, registered on the server itself.
   */
  private serveWithTrailingSlash(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'fastify') return;
    const { initialConfig: config } = adapter.getInstance() as { initialConfig?: FastifyRouting & { routerOptions?: FastifyRouting } };
    if (config?.ignoreTrailingSlash || config?.routerOptions?.ignoreTrailingSlash) return;
    adapter.get(`${this.backOffice.base()}/`, (_request: unknown, response: unknown) => {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) adapter.setHeader(response, name, value);
      adapter.reply(response, this.backOffice.page(), 200);
    });
  }
}
