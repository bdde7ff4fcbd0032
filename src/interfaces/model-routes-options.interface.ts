import type { ModuleMetadata, Provider, Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import type { AdmissionOptions } from '../concurrency/admission.js';
import type { ImageOptions } from '../files/image-work.js';
import type { ElementRoutesOptions, FileRoutesOptions, ReferenceRoutesOptions, ResourceRoutesOptions, RouteVersion } from './route-options.interface.js';
import type { SearchOptions } from './search-options.interface.js';

/**
 * A resource listed with the Mongoose schema to use, instead of the one
 * `SchemaFactory.createForClass()` would build (for hooks, plugins or indexes added by hand),
 * and/or with its sub-types, as `MongooseModule.forFeature([{ name, schema, discriminators }])` takes them.
 *
 * @publicApi
 */
export interface ResourceRegistration {
  resource: Type;
  schema?: Schema;
  /** Its sub-types (Mongoose discriminators), served by the resource's routes: see docs/models.md#discriminators. */
  discriminators?: DiscriminatorRegistration[];
}

/**
 * A sub-type of a resource (a Mongoose discriminator), as `@nestjs/mongoose`'s `forFeature` takes it:
 * its name (the discriminator's model name, e.g. `Book`), its own schema, and the value of the key
 * that marks its documents (default: its name).
 *
 * @publicApi
 */
export interface DiscriminatorRegistration {
  /** The discriminator's model name (`Book.name`). */
  name: string;
  /** Its own fields: `SchemaFactory.createForClass(Book)`. */
  schema: Schema;
  /** The value of the key that marks its documents; default its `name`. */
  value?: string;
}

/**
 * The part of the options that `forRootAsync` may compute (from `ConfigService`, say):
 * the behaviour of the routes, not their existence.
 *
 * @publicApi
 */
export interface ModelRoutesSettings {
  /** Limits of the search routes, for every resource (a resource's own `search` option wins). */
  search?: SearchOptions;
  /**
   * Every resource's writes require `If-Match` (428 `MR_PRECONDITION_REQUIRED` without it); a
   * resource's own `requireIfMatch` wins. Default false.
   */
  requireIfMatch?: boolean;
  /**
   * Limits of the image work of the file fields with `variants`: the largest image accepted
   * (`maxPixels`), the resizes run at once (`concurrency`) and waiting (`queue`), and the time one
   * may take (`timeout`). Defaults 25,000,000 pixels, 2, 16, 10 seconds.
   */
  images?: ImageOptions;
  /**
   * The admission limit of the generated routes, per registration (so per process and connection
   * pool): the requests at work at once (`concurrency`, default a quarter of the pool's
   * `maxPoolSize`), the requests waiting for a place (`queue`, default as many), and the
   * `Retry-After` of the 503 `MR_OVERLOADED` answered at once past them (`retryAfter`, default 1 s).
   * `false` turns it off.
   */
  admission?: AdmissionOptions | false;
}

/**
 * The synchronous part of the options: what decides which routes and controllers exist.
 *
 * @publicApi
 */
export interface ModelRoutesExtras {
  /** Classes decorated with `@GeneratedResource()` and `@Schema()`, or `{ resource, schema }` pairs. */
  resources: Array<Type | ResourceRegistration>;
  /**
   * Your controllers that extend a generated one (`class CompanyController extends GeneratedController(Company)`):
   * they replace the generated controller of their resource, keeping its routes.
   */
  controllers?: Type[];
  /** Providers your `controllers` inject (they live in this module). */
  providers?: Provider[];
  /** Modules whose exported providers your `controllers` inject. With `forRootAsync`, also the factory's. */
  imports?: ModuleMetadata['imports'];
  /**
   * The API version(s) of every generated route, as Nest's `@Version()` takes them (`'1'`,
   * `['1', '2']`, `VERSION_NEUTRAL`), served as `app.enableVersioning()` says; a resource's
   * `version` and a route's own win. Default: none (the app's `defaultVersion`, if any).
   */
  version?: RouteVersion;
  /** Defaults for the routes of every resource; a resource's own `routes` option wins, key by key. */
  routes?: ResourceRoutesOptions;
  /** Defaults for the reference routes of every reference field. */
  references?: ReferenceRoutesOptions;
  /** Defaults for the routes of every file field (`@FileProp()`). */
  files?: FileRoutesOptions;
  /** Defaults for the element routes of every array of sub-documents (and their `maxElements`). */
  elements?: ElementRoutesOptions;
  /** Name of the Mongoose connection, as given to `MongooseModule.forRoot(uri, { connectionName })`. */
  connectionName?: string;
  /**
   * Also give the errors of the rest of the application the library's shape, through a global
   * exception filter: your own controllers' errors, malformed JSON (400), oversized bodies (413),
   * unknown routes (404) and a known path with a method it does not serve (405 with `Allow`).
   * Default false: only the generated controllers (and your routes on them) use the filter.
   */
  globalErrorFilter?: boolean;
  /**
   * The class-transformer groups of a request, for `@Expose({ groups })` and `@Transform(..., { groups })`
   * on the resources' classes: a field exposed to some groups only is in the responses of the
   * requests that have one of them, and only those may filter, sort or select it (for the others
   * it is as unknown as a field that does not exist). Called once per request on the routes of a
   * class that has such decorators. Default: no groups.
   *
   * @example
   * ```ts
   * serializationGroups: (request) => (request.user?.role === 'admin' ? ['admin'] : [])
   * ```
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  serializationGroups?: (request: any) => string[] | undefined;
  /**
   * Export the resources' repositories and the `ModelRoutesExplorer` to the whole application
   * (as `MongooseModule.forRoot` does its connection). With `false`, they are visible to this
   * module's controllers and providers and to the module that imports it. Default true.
   */
  isGlobal?: boolean;
}

/**
 * Options of `ModelRoutesModule.forRoot()`.
 *
 * @publicApi
 */
export interface ModelRoutesModuleOptions extends ModelRoutesExtras, ModelRoutesSettings {}

/**
 * A class that computes the settings, for `forRootAsync({ useClass })` and `useExisting`.
 *
 * @publicApi
 */
export interface ModelRoutesSettingsFactory {
  createModelRoutesSettings(): ModelRoutesSettings | Promise<ModelRoutesSettings>;
}
