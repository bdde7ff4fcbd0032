import type { CanActivate, Type } from '@nestjs/common';

/**
 * The settings of `BackOfficeModule`: what `forRootAsync()`'s factory may compute (from
 * `ConfigService`, say). They change what the page shows and sends, not its routes.
 *
 * @publicApi
 */
export interface BackOfficeSettings {
  /** The page's title; default `'Back office'`. */
  title?: string;
  /**
   * How the page sends credentials to the generated routes that the app guards: in this header,
   * with `scheme` before the value when given. Default `{ header: 'authorization', scheme: 'Bearer' }`;
   * an API key: `{ header: 'x-api-key' }`. The user enters the value once; it is kept for the session.
   */
  auth?: { header: string; scheme?: string };
}

/**
 * The options of `BackOfficeModule` that shape its routes, given synchronously to `forRoot()` and
 * `forRootAsync()` alike: Nest needs the controller's path and guards when the module is declared.
 *
 * @publicApi
 */
export interface BackOfficeExtras {
  /** Where the back office is served, under the app's global prefix: a literal path such as `'/admin'` (the default) or `'/tools/data'`. */
  path?: string;
  /**
   * Guards of the metadata route (`GET <path>/metadata`), the one route of the back office that
   * tells anything about the app. The page and its scripts hold no data and stay public; the
   * generated routes keep their own guards. A guard class is instantiated in `BackOfficeModule`, so
   * its dependencies must be global providers; give an instance otherwise.
   */
  guards?: Array<Type<CanActivate> | CanActivate>;
}

/**
 * Options of `BackOfficeModule.forRoot()`: the extras and the settings in one object. Every option is optional.
 *
 * @publicApi
 */
export interface BackOfficeOptions extends BackOfficeExtras, BackOfficeSettings {}

/**
 * A class that computes the settings, for `BackOfficeModule.forRootAsync({ useClass })` or `{ useExisting }`.
 *
 * @publicApi
 */
export interface BackOfficeSettingsFactory {
  createBackOfficeSettings(): BackOfficeSettings | Promise<BackOfficeSettings>;
}

/** The options in force, defaults applied and checked; `path` without its outer slashes (`'admin'`). */
export interface ResolvedBackOfficeOptions {
  path: string;
  title: string;
  auth: { header: string; scheme?: string };
  guards: Array<Type<CanActivate> | CanActivate>;
}
