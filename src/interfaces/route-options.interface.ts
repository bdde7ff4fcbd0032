import type { CanActivate, NestInterceptor, PipeTransform, Type, VERSION_NEUTRAL } from '@nestjs/common';
import type { ElementActionName, FileActionName, ReferenceActionName, ResourceActionName } from '../metadata/route-actions.js';

/**
 * How one generated route is served: `false` removes it (a 404, and absent from OpenAPI),
 * `true` keeps it as configured in `forRoot`, an object configures it. Guards, interceptors,
 * pipes and decorators are applied exactly as if written on a hand-made handler.
 *
 * @example
 * ```ts
 * { delete: { guards: [ApiKeyGuard] }, update: false, patch: false, search: { decorators: [Header('Cache-Control', 'max-age=60')] } }
 * ```
 *
 * @publicApi
 */
export type RouteOptions =
  | boolean
  | {
      /** Default true. */
      enabled?: boolean;
      guards?: Array<Type<CanActivate> | CanActivate>;
      interceptors?: Array<Type<NestInterceptor> | NestInterceptor>;
      pipes?: Array<Type<PipeTransform> | PipeTransform>;
      /** Any method decorators: `UseGuards(...)`, `Header(...)`, `applyDecorators(...)`, Swagger's... */
      decorators?: MethodDecorator[];
      /**
       * Where the route's queries read, on a replica set: `'secondaryPreferred'` spreads the reads of
       * a search over the secondaries, at the price of answers up to their replication lag behind
       * the writes (a document just created may be missing; `count` may lag). Read routes only
       * (`findOne`, `search`, `searchPost`, `find`, `list`, `reverse`, `reversePost`); default: the
       * connection's (the primary, unless the URI says otherwise).
       */
      readPreference?: ReadPreferenceMode;
      /**
       * The API version(s) this route serves (`'2'`, `['1', '2']`, `VERSION_NEUTRAL`), as Nest's
       * `@Version()` takes them, with `app.enableVersioning()`: over the resource's `version` and
       * `forRoot({ version })`. See docs/versioning.md.
       */
      version?: RouteVersion;
    };

/**
 * An API version as Nest's `@Version()` takes it: `'2'`, `VERSION_NEUTRAL`, or an array of them.
 *
 * @publicApi
 */
export type RouteVersion = string | typeof VERSION_NEUTRAL | Array<string | typeof VERSION_NEUTRAL>;

/** A MongoDB read preference mode. */
export type ReadPreferenceMode = 'primary' | 'primaryPreferred' | 'secondary' | 'secondaryPreferred' | 'nearest';

/**
 * The routes of a resource, by their one name (the handler you override, the operationId's end):
 * `findOne` (`GET /company/:company_id`), `create`, `update` (PUT), `patch`, `delete`, `search`
 * (`GET /companies`) and `searchPost` (`POST /companies`).
 *
 * @publicApi
 */
export type ResourceRoutesOptions = { [K in ResourceActionName]?: RouteOptions };

/**
 * The routes of one reference field, by name: `find` (`GET /company/:company_id/owner`), or `list`
 * for an array of references; `reverse` and `reversePost` (`GET` and `POST
 * /user/:user_id/companies/owner`); for an array of references, `add` and `remove`
 * (`POST` and `DELETE /company/:company_id/owners/:user_id`). And one setting of the field:
 *
 * @publicApi
 */
export type ReferenceRoutesOptions = { [K in ReferenceActionName]?: RouteOptions } & {
  /**
   * Whether a write must name an existing document in this field (every element of an array of
   * references): a write whose reference names none is a 400 `MR_REFERENCE_NOT_FOUND`. It costs
   * one query per written reference field. Default true.
   */
  checkExists?: boolean;
  /**
   * Whether a client may expand this field (`?expand=owner`, `"expand": ["owner"]` in a search
   * body): the referenced documents in place of their identifiers, read under their own
   * resource's rules (hidden fields, serialization groups), one query per field for a whole page.
   * Declaring it lets whoever reads this resource read the referenced documents through it, so
   * the referenced resource's own read guards are not asked: declare it where they are the same,
   * or stricter here. Default false.
   */
  expand?: boolean;
  /**
   * Whether a search may hold conditions on the referenced documents' fields (`{ "owner.niceName":
   * { "$regex": "^a" } }`), checked under the referenced resource's rules and resolved to the
   * matching identifiers first (at most `search.maxRelationIds`). The same access decision as
   * `expand`. Default false.
   */
  filter?: boolean;
  /**
   * A name under which the referenced documents may list the documents that reference them, for
   * `expand`: `expandReverse: 'companies'` on `Company.owner` lets `GET /user/:user_id?expand=companies`
   * answer each user with its companies (at most `search.defaultLimit` per user, or a search body's
   * `{ "path": "companies", "limit": 5, "sort": "-employees" }`), read under this resource's rules, in
   * one query for a whole page. Not a field of the referenced schema; unique among its names. The
   * same access decision as `expand`. Default: none.
   */
  expandReverse?: string;
};

/**
 * The routes of one file field, by name: `upload` (`PUT /company/:company_id/logo`), or `addFile`
 * for a gallery (`POST /company/:company_id/photos`); `download` (`GET`, and `HEAD`) and
 * `deleteFile` (`DELETE`), under `/:file_id` for a gallery.
 *
 * @publicApi
 */
export type FileRoutesOptions = { [K in FileActionName]?: RouteOptions };

/**
 * The element routes of one array of sub-documents, by name: `addElement` (`POST
 * /pet/:pet_id/vaccinations`), `findElement` (`GET`), `patchElement` (`PATCH`) and `deleteElement`
 * (`DELETE /pet/:pet_id/vaccinations/:element_id`). And one setting of the field:
 *
 * @publicApi
 */
export type ElementRoutesOptions = { [K in ElementActionName]?: RouteOptions } & {
  /**
   * The most elements `addElement` lets the array hold: an append to a full array is a 409
   * `MR_ARRAY_FULL` and writes nothing. A write of the whole document is not counted (give the
   * array a `validate` of its length for that). Default 1000.
   */
  maxElements?: number;
};
