import { currentCall } from '../call/route-call.js';

/**
 * What a write does to a document: `create`, `update` (a merge of changes: PUT, PATCH, an import's
 * upsert, a bulk update), `delete`; and the writes of one field, which are updates too:
 * `addReference`/`removeReference` (an array of references), `addElement`/`updateElement`/
 * `removeElement` (an array of sub-documents), `setFile`/`addFile`/`removeFile` (a file field).
 *
 * @publicApi
 */
export type WriteOperation = 'create' | 'update' | 'delete' | 'addReference' | 'removeReference' | 'addElement' | 'updateElement' | 'removeElement' | 'setFile' | 'addFile' | 'removeFile';

/**
 * What a before-hook is told of the write to come.
 *
 * @publicApi
 */
export interface BeforeWriteContext<T = Record<string, unknown>> {
  /** The resource's name (`Company`). */
  resource: string;
  operation: WriteOperation;
  /** The document's identifier (its `id` field), as a path holds it; absent on a create. */
  id?: string;
  /** The field of a write of one field (`addReference`, `addElement`, `setFile`...). */
  field?: string;
  /**
   * A create's data, or an update's changes (only the fields that change, nested; `null` removes
   * one), checked already. Change it in place, or return another object from the hook: what is
   * written is what the hook leaves. It may set server-owned fields (`readonly`, hidden). Absent
   * for a delete and the writes of one field.
   */
  data?: Record<string, unknown>;
  /** The HTTP request, when the write is a generated route's (absent in your own code outside one). */
  request?: unknown;
  /** Reads the document as it is now (hidden fields out); `null` when none has this id. */
  current(): Promise<(T & { _id: unknown }) | null>;
}

/**
 * What an after-hook is told of a write that was stored.
 *
 * @publicApi
 */
export interface AfterWriteContext<T = Record<string, unknown>> {
  resource: string;
  operation: WriteOperation;
  /** The document's identifier (its `id` field), as a path holds it. */
  id: string;
  field?: string;
  /** The document as stored (after a delete: as it was), as the routes answer it: hidden fields out. */
  document: T & { _id: unknown };
  /** An update's changed paths (dotted, as written: `address.city`); a field's write names its field. */
  changed?: string[];
  request?: unknown;
}

/**
 * Lifecycle hooks of one resource, run by its repository around every write of a document, so on
 * every surface that writes: the generated routes, the relationship, element and file routes,
 * imports, bulk changes, and your own calls of `ModelRepository` (opt out per call with
 * `{ hooks: false }`). Give the class to `@GeneratedResource({ hooks })`: it is a provider of the
 * module, so it takes services by dependency injection (from `forRoot({ imports, providers })`).
 *
 * A before-hook runs after the client's body was checked and before the write; it may change
 * `context.data` or refuse with an exception: a Nest `HttpException` reaches the client with its
 * status and message in the error shape, and nothing is written. An after-hook runs once the write
 * is stored; it sees the stored document. An after-hook that throws does not undo the write: the
 * client gets the error, the document stays written.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class CompanyHooks implements ResourceHooks<Company> {
 *   constructor(private readonly audit: AuditService) {}
 *   beforeCreate({ data }: BeforeWriteContext<Company>) {
 *     if (data!.niceName === 'forbidden') throw new ForbiddenException('Not that name');
 *     data!.slug = slugify(String(data!.niceName));
 *   }
 *   afterDelete({ id }: AfterWriteContext<Company>) {
 *     return this.audit.record('company deleted', id);
 *   }
 * }
 * ```
 *
 * @publicApi
 */
export interface ResourceHooks<T = Record<string, unknown>> {
  beforeCreate?(context: BeforeWriteContext<T>): unknown;
  afterCreate?(context: AfterWriteContext<T>): unknown;
  /** Before every update: `context.operation` says which (`update`, `addReference`, `setFile`...). */
  beforeUpdate?(context: BeforeWriteContext<T>): unknown;
  afterUpdate?(context: AfterWriteContext<T>): unknown;
  beforeDelete?(context: BeforeWriteContext<T>): unknown;
  afterDelete?(context: AfterWriteContext<T>): unknown;
}

/** The phase of a write whose hooks run: create, update (every operation that changes a document) or delete. */
export type HookPhase = 'create' | 'update' | 'delete';

const BEFORE = { create: 'beforeCreate', update: 'beforeUpdate', delete: 'beforeDelete' } as const;
const AFTER = { create: 'afterCreate', update: 'afterUpdate', delete: 'afterDelete' } as const;

/** One write's hooks to run, as the repository describes it. */
export interface HookedWrite {
  phase: HookPhase;
  operation: WriteOperation;
  id?: string;
  field?: string;
}

/** Runs one resource's hooks (see `ResourceHooks`) around the writes of its repository. */
export class WriteHooks<D extends { _id: unknown }> {
  constructor(
    private readonly hooks: ResourceHooks<any>,
    private readonly resource: string,
    private readonly read: (id: string) => Promise<D | null>,
  ) {}

  /** Whether any hook of this phase exists: a write without one costs nothing more. */
  has(phase: HookPhase): boolean {
    return typeof this.hooks[BEFORE[phase]] === 'function' || typeof this.hooks[AFTER[phase]] === 'function';
  }

  /** Runs the before-hook of `write`, if any; answers the data to write (the hook's, or `data` as it left it). */
  async before<V extends Record<string, unknown> | undefined>(write: HookedWrite, data: V): Promise<V> {
    const hook = this.hooks[BEFORE[write.phase]];
    if (typeof hook !== 'function') return data;
    const { id, field, operation } = write;
    const returned = await hook.call(this.hooks, {
      resource: this.resource,
      operation,
      ...(id !== undefined && { id }),
      ...(field !== undefined && { field }),
      ...(data !== undefined && { data }),
      ...requestOf(),
      current: () => (id === undefined ? Promise.resolve(null) : this.read(id)),
    } satisfies BeforeWriteContext<unknown>);
    return data !== undefined && returned !== null && typeof returned === 'object' && !Array.isArray(returned) ? (returned as V) : data;
  }

  /** Runs the after-hook of `write`, if any, with the stored document. */
  async after(write: HookedWrite, id: string, document: D, changed?: string[]): Promise<void> {
    const hook = this.hooks[AFTER[write.phase]];
    if (typeof hook !== 'function') return;
    const { field, operation } = write;
    await hook.call(this.hooks, {
      resource: this.resource,
      operation,
      id,
      ...(field !== undefined && { field }),
      document,
      ...(changed && { changed }),
      ...requestOf(),
    } satisfies AfterWriteContext<unknown>);
  }
}

function requestOf(): { request?: unknown } {
  const request = currentCall()?.request;
  return request === undefined ? {} : { request };
}
