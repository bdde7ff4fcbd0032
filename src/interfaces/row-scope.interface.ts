/**
 * What a row scope is told: the request, as the application's guards left it (`request.user`...).
 *
 * @publicApi
 */
export interface ScopeContext {
  /** The HTTP request (Express's or Fastify's), of a generated route or of `runWithRequest`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  request: any;
  /** The resource's name (`Company`). */
  resource: string;
}

/**
 * What a row scope answers for a request: a filter on the resource's own fields, ANDed into every
 * read and write (`{ tenant: request.user.tenant }`); `undefined`, `null` or `{}` for every document
 * (an administrator); `false` for none.
 *
 * @publicApi
 */
export type ScopeFilter = Record<string, unknown> | false | null | undefined;

/**
 * The documents of a resource that one request may reach, declared with
 * `@GeneratedResource({ scope })` and applied by the repository to every read and write of a
 * request, on every surface: get, search and its counts, the reference, relationship, element and
 * file routes, expand and filters across references (a target outside its own scope reads as
 * missing), exports, imports, bulk changes, the back office. A document outside the scope is a 404,
 * as one that does not exist. A create stamps the scope's equality fields (`tenant`), and a body
 * that sets one to another value is a 403 `MR_OUT_OF_SCOPE`, as is an update that changes one.
 *
 * Synchronous: what needs I/O (a membership lookup) belongs in a guard that puts it on the request.
 * The class is a provider of the module (it takes services by injection); a function is the
 * shorthand of a scope whose `read` and `write` are the same.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class TenantScope implements RowScope {
 *   read({ request }: ScopeContext) {
 *     return request.user?.admin ? undefined : { tenant: request.user?.tenant ?? null };
 *   }
 * }
 *
 * @GeneratedResource({ scope: TenantScope })
 * export class Company { ... }
 * ```
 *
 * @publicApi
 */
export interface RowScope {
  /** The documents the request may read (and so reach at all). */
  read(context: ScopeContext): ScopeFilter;
  /**
   * Of those, the documents it may write: update, delete, the writes of one field, and what a
   * create stamps. Default: `read`. A document it may read and not write is a 403 `MR_OUT_OF_SCOPE`
   * on a write ("published or mine": reads `{ $or: [{ published: true }, { owner }] }`, writes `{ owner }`).
   */
  write?(context: ScopeContext): ScopeFilter;
}

/**
 * A row scope as a function: the filter of both reads and writes.
 *
 * @publicApi
 */
export type RowScopeFunction = (context: ScopeContext) => ScopeFilter;
