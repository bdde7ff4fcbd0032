import type { RowScope, RowScopeFunction } from './row-scope.interface.js';
import type { Type } from '@nestjs/common';
import type { ElementRoutesOptions, FileRoutesOptions, ReferenceRoutesOptions, ResourceRoutesOptions, RouteVersion } from './route-options.interface.js';
import type { SearchOptions } from './search-options.interface.js';

/**
 * Options of `@GeneratedResource()`. Every option is optional.
 *
 * @publicApi
 */
export interface GeneratedResourceOptions {
  /** Singular path segment, e.g. `company` in `GET /company/:company_id`. Default: kebab-case of the class name. */
  path?: string;
  /** Plural path segment, e.g. `companies` in `GET /companies`. Default: English plural of `path`. */
  plural?: string;
  /**
   * The field that identifies an instance in URLs. Default `_id`.
   * Any unique field works, e.g. a slug.
   */
  id?: string;
  /**
   * Fields never returned, filtered, sorted or selected, on any route (in addition to the
   * schema's `select: false` fields). Dotted paths reach into nested objects.
   */
  hidden?: string[];
  /** Fields clients may never write (in addition to `_id`, the version key and timestamps). */
  readonly?: string[];
  /**
   * Fields a client may send but never reads back, e.g. a password: hidden from every response,
   * filter, sort and `select`, like `hidden`, yet accepted on create and update. Every other
   * hidden field is refused on write with the message of an unknown field.
   */
  writeOnly?: string[];
  /**
   * Your DTO classes for the create and update bodies, in place of the generated ones
   * (`CompanyCreateDto`, `CompanyUpdateDto`). One may extend the generated one:
   * `class CreateCompanyDto extends GeneratedDto(Company, 'create') { @IsEmail() contact: string }`.
   * Give a class, or an arrow function returning it when it is declared after the resource
   * (`create: () => CreateCompanyDto`). The bodies are checked with them (and by your app's
   * `ValidationPipe`), after the field rules; the schema's validators still run on write.
   */
  dto?: { create?: DtoOption; update?: DtoOption };
  /** Search limits of this resource, over those of `forRoot({ search })`. */
  search?: SearchOptions;
  /**
   * Refuse its writes (PUT, PATCH, DELETE, the add/remove routes of its arrays of references, the
   * file routes and the element routes of its arrays of sub-documents)
   * that carry no `If-Match`, with 428 `MR_PRECONDITION_REQUIRED`: no client can overwrite a change
   * it has not seen. Over `forRoot({ requireIfMatch })`; default false.
   */
  requireIfMatch?: boolean;
  /**
   * The API version(s) of every route of this resource (its reference, file and element routes,
   * and the routes of your controller that give none), as Nest's `@Version()` takes them: `'2'`,
   * `['1', '2']`, `VERSION_NEUTRAL`. Over `forRoot({ version })`; a route's own `version` wins.
   * Served as `app.enableVersioning()` says (URI, header, media type). Default: none (the app's `defaultVersion`).
   */
  version?: RouteVersion;
  /** This resource's routes: disable one, guard one... Each key replaces `forRoot({ routes })`'s. */
  routes?: ResourceRoutesOptions;
  /** The reference routes of each reference field of this resource, by field name. */
  references?: Record<string, ReferenceRoutesOptions>;
  /** The routes of each file field (`@FileProp()`) of this resource, by field name. */
  files?: Record<string, FileRoutesOptions>;
  /** The element routes of each array of sub-documents of this resource, by field name (`vaccinations`). */
  elements?: Record<string, ElementRoutesOptions>;
  /**
   * Its lifecycle hooks: an `@Injectable()` class implementing `ResourceHooks` (`beforeCreate`,
   * `afterUpdate`...), run by its repository around every write of its documents, on every surface
   * (routes, imports, bulk changes, your own repository calls). The module provides it, so it takes
   * services by injection from `forRoot({ imports, providers })`. See docs/rules.md.
   */
  hooks?: Type;
  /**
   * Its row scope: the documents one request may reach, ANDed into every read and write on every
   * surface (a tenant, an owner, "published or mine"). An `@Injectable()` class implementing
   * `RowScope` (`read`, and `write` if writes reach fewer documents), provided by the module so it
   * takes services by injection; or a function of the request answering one filter for both.
   * See docs/rules.md.
   *
   * @example
   * ```ts
   * @GeneratedResource({ scope: ({ request }) => ({ tenant: request.user?.tenant ?? null }) })
   * ```
   */
  scope?: Type<RowScope> | RowScopeFunction;
  /**
   * Soft delete: `DELETE` marks the document (its `deletedAt` field, added to the schema if absent,
   * set to the time; `null` while it lives) instead of removing it. A marked document is out of every
   * read and write of every surface, as a deleted one; the resource gets the routes of its trash:
   * `GET /<plural>/trash` (a search of the marked documents), `POST /<path>/:id/restore` and
   * `DELETE /<path>/:id/purge` (the real delete), guardable as any route (`routes: { purge: { decorators } }`).
   * `{ field }` names another field. See docs/rules.md.
   */
  softDelete?: boolean | { field?: string };
  /**
   * History: every write keeps the state it made of the document (hidden fields included, never
   * answered), with when, who (`actor`, from the request), which route, the operation and the changed
   * paths, in `<collection>_history`; the resource gets `GET /<path>/:id/history` and
   * `POST /<path>/:id/history/restore?version=`. `keep`: the versions kept per document (default 100).
   * Needs the schema's version key. See docs/rules.md.
   */
  history?: boolean | HistoryOptions;
  /**
   * Its sub-types (Mongoose discriminators): classes decorated with `@Schema()`, each a discriminator
   * named after its class, whose documents are marked by the schema's `discriminatorKey` (default
   * `__t`) set to the class name. One resource serves them all: a create picks the sub-type by the
   * key, and each is checked with its own fields. Discriminators declared on a schema you give
   * (`schema.discriminator('Book', BookSchema)`) are served the same way. See docs/models.md#discriminators.
   */
  discriminators?: Type[];
}

/**
 * The options of a resource's history.
 *
 * @publicApi
 */
export interface HistoryOptions {
  /** The versions kept per document, the latest; older ones are removed as new ones come. Default 100. */
  keep?: number;
  /** Who made a write, from its request (`request.user?.id`); absent outside a request. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  actor?: (request: any) => string | undefined;
}

/**
 * A DTO class, or an arrow function returning one (for a class declared after the resource).
 *
 * @publicApi
 */
export type DtoOption = Type | (() => Type);
