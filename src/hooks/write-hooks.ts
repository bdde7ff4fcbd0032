/**
 * What a write does to a document: `create`, `update` (a merge of changes: PUT, PATCH, an import's
 * upsert, a bulk update), `delete`; and the writes of one field, which are updates too:
 * `addReference`/`removeReference` (an array of references), `addElement`/`updateElement`/
 * `removeElement` (an array of sub-documents), `setFile`/`addFile`/`removeFile` (a file field);
 * with soft delete, `delete` marks the document, `restore` (an update) brings it back, and `purge`
 * (a delete) removes it for good; with history, `revert` (an update) writes back a version.
 *
 * @publicApi
 */
export type WriteOperation =
  | 'create'
  | 'update'
  | 'delete'
  | 'addReference'
  | 'removeReference'
  | 'addElement'
  | 'updateElement'
  | 'removeElement'
  | 'setFile'
  | 'addFile'
  | 'removeFile'
  | 'restore'
  | 'purge'
  | 'revert';

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
  data?: WriteData<T>;
  /** The HTTP request, when the write is a generated route's (absent in your own code outside one). */
  request?: unknown;
  /** Reads the document as it is now (hidden fields out); `null` when none has this id. */
  current(): Promise<(T & { _id: unknown }) | null>;
}

/**
 * The data of a write, as a before-hook is handed it: any field of `T` may be absent, or `null` (an
 * update removes it); a nested object holds only the sub-fields that change, at every depth; an
 * array, a date, an identifier or a Map is a whole value. Dotted paths (`'address.city'`), which your
 * own repository calls may send, are admitted too, as `unknown`.
 *
 * @example
 * ```ts
 * beforeUpdate({ data }: BeforeWriteContext<Ticket>) {
 *   if ((data?.comments?.length ?? 0) > 100) throw new BadRequestException('Too many comments');
 * }
 * ```
 *
 * @publicApi
 */
export type WriteData<T> = { [K in keyof T]?: WriteValue<T[K]> | null } & { [path: `${string}.${string}`]: unknown };

/** A field's value in `WriteData`: a plain nested object's sub-fields are changes too; any other value is whole. */
type WriteValue<V> = V extends readonly unknown[] | ReadonlyMap<unknown, unknown> | Date | { toJSON(): unknown } | ((...args: never[]) => unknown)
  ? V
  : V extends object
    ? { [K in keyof V]?: WriteValue<V[K]> | null }
    : V;

/**
 * What an after-hook is told of a write that was stored.
 *
 * @publicApi
 */
export interface AfterWriteContext<T = Record<string, unknown>> extends WriteEvent<T> {
  /** The HTTP request, when the write is a generated route's (absent in your own code outside one). */
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

/**
 * What an event of a stored write carries (`company.created`, `company.updated`, `company.deleted`),
 * emitted through `@nestjs/event-emitter` when the application has its module.
 *
 * @publicApi
 */
export interface WriteEvent<T = Record<string, unknown>> {
  /** The resource's name (`Company`). */
  resource: string;
  operation: WriteOperation;
  /** The document's identifier (its `id` field), as a path holds it. */
  id: string;
  /** The field of a write of one field (`addReference`, `setFile`...). */
  field?: string;
  /** The document as stored (after a delete: as it was), as the routes answer it: hidden fields out. */
  document: T & { _id: unknown };
  /** An update's changed paths (dotted, as written: `address.city`), or the field a write of one field changed. */
  changed?: string[];
}

/** Where a repository tells of its stored writes: the application's `EventEmitter2`, and the events' prefix (the resource's path). */
export interface WriteEventSink {
  /** Absent while (or where) the application has none: nothing is emitted. */
  readonly emitter?: { emit(event: string, ...values: unknown[]): unknown };
  readonly prefix: string;
}

/** The phase of a write whose hooks run: create, update (every operation that changes a document) or delete. */
export type HookPhase = 'create' | 'update' | 'delete';
