import type { Model, Types } from 'mongoose';
import { NO_CALL, type CallContext } from '../call/call-context.js';
import type { WriteOptions } from '../concurrency/conditional-write.js';
import type { RepositoryDefinition } from '../definitions/repository-definition.interface.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { FileRef } from '../files/file-ref.js';
import type { BulkOptions, BulkReport } from '../interfaces/bulk.interface.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { SearchParams } from '../query/search-params.interface.js';
import type { HistoryPage } from '../rules/document-history.js';
import { RulePipeline } from '../rules/rule-pipeline.js';
import { registerReadFilter } from '../scopes/row-scope.js';
import { inTrash } from '../scopes/soft-delete.js';
import type { ElementRules } from '../write/element-rules.util.js';
import { DocumentSearch } from './document-search.js';
import { DocumentStore, type PlainDocument } from './document-store.js';
import { DocumentWrites } from './document-writes.js';
import type { RepositoryOptions } from './repository-options.js';
import type { SearchPlace } from './search-error.util.js';

export type { PlainDocument } from './document-store.js';
export type { RepositoryOptions } from './repository-options.js';
export { EXPORT_PAGE } from './document-search.js';

/**
 * What an export's work gives: the pages of the documents to write, in order (`exportPages`).
 *
 * @publicApi
 */
export type ExportPages<T = Record<string, unknown>> = AsyncIterable<Array<PlainDocument<T>>>;

/**
 * The one data access service behind every generated route, one instance per resource. Knows
 * Mongoose, knows no HTTP. Inject it in your own code with `@InjectModelRepository(Company)`.
 *
 * Every method serves one call (`CallContext`): the generated routes hand theirs with `in(context)`;
 * your own code's calls serve the work in progress (your override in a generated route, a route
 * under `RowScopeInterceptor`), else none (unscoped). Its rules (`RulePipeline`: soft delete, row
 * scope, hooks, history, events) apply to every read and write, whoever calls. Writes take checked
 * data (`checkWriteBody`), resolve and check references (`MR_REFERENCE_NOT_FOUND`), merge updates at
 * every depth (`null` removes a field; arrays are replaced whole), run one after the other per
 * document where the engine needs it, increment the version key (the `ETag`), apply `If-Match` and
 * `If-None-Match` in the write's own filter (`WriteOptions`), apply `onDelete` rules on delete, and
 * answer failures as `MR_VALIDATION_FAILED` and `MR_DUPLICATE_KEY`. Every query carries `maxTimeMS`
 * (`search.maxTimeMS` of the resource).
 *
 * @publicApi
 */
export class ModelRepository<T = Record<string, unknown>> {
  /** The resource's rules, in their order (see `RulePipeline`). */
  readonly rules: RulePipeline<PlainDocument<T>>;
  /** The document operations (see `DocumentStore`). */
  private readonly store: DocumentStore<T>;
  private readonly searches: DocumentSearch<T>;
  private readonly writes: DocumentWrites<T>;
  private readonly ambient?: () => CallContext | undefined;
  /** The call context handed to `in()`, on the view it made; none on the repository itself. */
  private context?: CallContext = undefined;

  constructor(
    readonly model: Model<T>,
    readonly definition: RepositoryDefinition,
    { hooks, events, scope, ambient, appCode }: RepositoryOptions<T> = {},
  ) {
    this.ambient = ambient;
    this.rules = new RulePipeline<PlainDocument<T>>(model, definition, { hooks, events, scope, appCode, read: (id, call) => this.store.findOne(id, call) });
    this.store = new DocumentStore(model, definition, this.rules);
    this.searches = new DocumentSearch(this.store);
    this.writes = new DocumentWrites(this.store, this.searches, this.rules);
    if (this.rules.filters) registerReadFilter(model, (call) => this.rules.filter(call, 'read'));
  }

  /** This repository, serving the call `context`: what the generated routes call (`repository.in(call.context)`). Cheap: no copy. */
  in(context: CallContext): this {
    // Assigned, not given as a descriptor to Object.create: V8's descriptor path costs about 0.5 µs a view, this one nanoseconds.
    const view = Object.create(this) as this;
    view.context = context;
    return view;
  }

  /** The call this repository serves: the one handed to `in()`, else the work in progress (see the class), else none. */
  get call(): CallContext {
    return this.context ?? this.ambient?.() ?? NO_CALL;
  }

  /** Where the files of its `@FileProp()` fields are (`companies_files`), if it has any. */
  get files() {
    return this.store.files;
  }

  /** Finds the document whose `id` field (default `_id`) equals `id`; `null` when none does. */
  findOne(id: string): Promise<PlainDocument<T> | null> {
    return this.store.findOne(id, this.call);
  }

  /** The document whose `id` field equals `id`; a 404 `MR_NOT_FOUND` (an `HttpException`) when none does. */
  async getOne(id: string): Promise<PlainDocument<T>> {
    const doc = await this.findOne(id);
    if (!doc) throw ModelRoutesException.notFound(this.definition.name, id);
    return doc;
  }

  /** Finds a document by its `_id`, whatever the resource's `id` field: how references are stored. */
  findByObjectId(objectId: Types.ObjectId | string): Promise<PlainDocument<T> | null> {
    return this.store.findByObjectId(objectId, this.call);
  }

  /**
   * The documents whose `_id` is one of `objectIds`, each as `findOne` answers it, in no particular
   * order: one query per thousand identifiers, never one per document. What expanding a reference reads.
   */
  findByObjectIds(objectIds: readonly unknown[]): Promise<Array<PlainDocument<T>>> {
    return this.store.findByObjectIds(objectIds, this.call);
  }

  /**
   * The documents whose reference `field` names one of `objectIds`, each as `findOne` answers it, in
   * `sort` order (`_id` breaks ties): one query, at most `limit` documents. What expanding a reverse path reads.
   */
  findReferencing(field: string, objectIds: readonly unknown[], sort: Record<string, 1 | -1> | undefined, limit: number): Promise<Array<PlainDocument<T>>> {
    return this.store.findReferencing(field, objectIds, sort, limit, this.call);
  }

  /** Creates a document; `null` values are left out; references are resolved and checked; schema validators run. */
  create(data: Record<string, unknown>, options?: Pick<WriteOptions, 'hooks'>): Promise<PlainDocument<T>> {
    return this.writes.create(data, options, this.call);
  }

  /**
   * Merges `data` into the document (see `toMergeUpdate`): only the fields it names change, at
   * every depth; their validators run. Returns the updated document, or `null` when none has this id.
   */
  update(id: string, data: Record<string, unknown>, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.update(id, data, options, this.call);
  }

  /** Adds one identifier to an array of references, once; the document, or `null`. Adding one that is there already writes nothing. */
  addReference(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.addReference(id, field, objectId, options, this.call);
  }

  /** Removes one identifier from an array of references; the document, or `null`. Removing one that is not there writes nothing. */
  removeReference(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.removeReference(id, field, objectId, options, this.call);
  }

  /**
   * Appends one element to the array of sub-documents `field`, with a new `_id`, unless the array
   * holds `maxElements` already (a 409 `MR_ARRAY_FULL`): one `$push`, so that concurrent appends are
   * all kept. `element` is checked data. The document and the new element's `_id`, or `null`.
   */
  addElement(
    id: string,
    field: string,
    element: Record<string, unknown>,
    bounds: { rules: ElementRules; maxElements: number },
    options?: WriteOptions,
  ): Promise<{ doc: PlainDocument<T>; elementId: Types.ObjectId } | null> {
    return this.writes.addElement(id, field, element, bounds, options, this.call);
  }

  /**
   * Merges `data` (checked, its paths relative to the element) into the element `elementId` of the
   * array `field`, as `update` merges into a document, written again when other writes moved it in
   * between. The document; `null` when no document has this id; `undefined` when the array holds no such element.
   */
  updateElement(
    id: string,
    field: string,
    elementId: unknown,
    data: Record<string, unknown>,
    rules: ElementRules,
    options?: WriteOptions,
  ): Promise<PlainDocument<T> | null | undefined> {
    return this.writes.updateElement(id, field, elementId, data, rules, options, this.call);
  }

  /**
   * Removes the element `elementId` from the array `field` (one `$pull` on MongoDB; on FerretDB v1,
   * the array written without it, on the condition that it is unchanged). The document; `null` when
   * no document has this id; `undefined` when the array holds no such element.
   */
  removeElement(id: string, field: string, elementId: unknown, options?: WriteOptions): Promise<PlainDocument<T> | null | undefined> {
    return this.writes.removeElement(id, field, elementId, options, this.call);
  }

  /** The element `elementId` of the array `field` (hidden fields out, the document's entity tag); `null`: no document; `undefined`: no element. */
  findElement(id: string, field: string, elementId: unknown): Promise<Record<string, unknown> | null | undefined> {
    return this.writes.findElement(id, field, elementId, this.call);
  }

  /**
   * Deletes the document with this id, then its files, and returns it; `null` when none has this
   * id. First the `onDelete` rules of the fields that reference it apply (a 409 `MR_REFERENCED`
   * while a `restrict` field does, then `nullify` and `pull`). With soft delete, marks it instead.
   */
  delete(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.delete(id, options, this.call);
  }

  /**
   * Merges `data` into every document `filter` matches, each as `update()` merges it into one, a few
   * at a time in `_id` order, each write filtered on `filter` again (a document that no longer
   * matches is `skipped`). More matches than `maxDocuments` (default `search.bulkMaxDocuments`) is
   * a 400 `MR_BULK_TOO_LARGE`, nothing written; a document whose write is refused is reported
   * `refused`. `filter` is an engine filter (a client's is checked first: `parseSearchBody`). `dryRun` writes nothing.
   *
   * @example
   * ```ts
   * const report = await companies.updateMany({ location: 'Lyon' }, { location: 'Lyon 2e' }, { maxDocuments: 50 });
   * ```
   */
  updateMany(filter: Record<string, unknown>, data: Record<string, unknown>, options: BulkOptions = {}): Promise<BulkReport> {
    return this.writes.updateMany(filter, data, options, this.call);
  }

  /** Deletes every document `filter` matches, each as `delete()` deletes one, with the bound, the report and the dry run of `updateMany()`. */
  deleteMany(filter: Record<string, unknown>, options: BulkOptions = {}): Promise<BulkReport> {
    return this.writes.deleteMany(filter, options, this.call);
  }

  /**
   * Restores a document soft delete marked (`@GeneratedResource({ softDelete })`), as it was; `null`
   * when no marked document has this id. An update to its hooks (`operation: 'restore'`); its
   * references are not checked again.
   */
  async restore(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.restore(id, this.softDelete('restore').field, options, this.call);
  }

  /** Deletes for good a document soft delete marked, as `delete()` deletes one without soft delete; `null` when no marked document has this id. */
  async purge(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    this.softDelete('purge');
    return this.writes.purge(id, options, this.call);
  }

  /** Runs a parsed search over the documents soft delete marked, as `search()` runs one over the living. */
  async trash(params: SearchParams): Promise<SearchResult<PlainDocument<T>>> {
    this.softDelete('trash');
    return this.searches.search(params, undefined, inTrash(this.call, this.definition.name));
  }

  /**
   * The versions of the document `id` names, the latest first, `limit` of them after `skip`
   * (`@GeneratedResource({ history })`), each as `findOne` answers a document, and the count kept.
   * `null` when no document the call may read has this id.
   */
  async history(id: string, { limit = 20, skip = 0 }: { limit?: number; skip?: number } = {}): Promise<HistoryPage<PlainDocument<T>> | null> {
    const { versions } = this.historyOf('history');
    const doc = await this.findOne(id);
    if (!doc) return null;
    const { entries, count } = await versions.list(doc._id, { limit, skip });
    return { result: entries.map((entry) => Object.assign({}, entry, { document: this.store.toPlain(entry.document) })), status: { count, limit, skip } };
  }

  /**
   * Writes back the state version `version` of the document had, hidden fields included; its
   * timestamps, version and soft delete mark are its own. An update to its hooks (`operation: 'revert'`).
   * `null` when no document the call may write has this id; a 404 `MR_NOT_FOUND` for no such version.
   */
  async revert(id: string, version: number, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    this.historyOf('revert');
    return this.writes.revert(id, version, options, this.call);
  }

  private historyOf(method: string) {
    if (!this.rules.history) throw new Error(`ModelRepository.${method}(): ${this.definition.name} keeps no history (@GeneratedResource({ history: true }))`);
    return this.rules.history;
  }

  private softDelete(method: string) {
    if (!this.rules.softDelete)
      throw new Error(`ModelRepository.${method}(): ${this.definition.name} has no soft delete (@GeneratedResource({ softDelete: true }))`);
    return this.rules.softDelete;
  }

  /**
   * Deletes the files of this resource's bucket that no document holds, stored more than
   * `olderThanMs` ago (default one hour): what a process stopped between storing a file and writing
   * its document leaves behind. Run it now and then. Returns how many it deleted.
   *
   * @example
   * ```ts
   * const removed = await companies.removeOrphanFiles({ olderThanMs: 24 * 3600 * 1000 });
   * ```
   */
  async removeOrphanFiles({ olderThanMs = 3_600_000 }: { olderThanMs?: number } = {}): Promise<number> {
    return this.store.fileWrites.removeOrphans(olderThanMs);
  }

  /** Stores `file` in a file field if it still holds the file `replaces` (or none): a compare-and-swap. The document, or `null`. */
  replaceFile(id: string, field: string, file: FileRef, replaces: Types.ObjectId | undefined, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.replaceFile(id, field, file, replaces, options, this.call);
  }

  /**
   * Stores `file` in a single-file field in place of whatever it holds, and says which file that was
   * (for the caller to delete), read and written in one turn of the document's writes; a 409
   * `MR_WRITE_CONFLICT` when other processes' writers keep getting in between. `null`: no document.
   */
  async swapFile(id: string, field: string, file: FileRef, options?: WriteOptions): Promise<{ document: PlainDocument<T>; replaced?: FileRef } | null> {
    return this.writes.swapFile(id, field, file, options, this.call);
  }

  /** Appends `file` to a gallery (a 409 `MR_GALLERY_FULL` past its `maxFiles`); the document, or `null`. */
  async addFile(id: string, field: string, file: FileRef, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.addFile(id, field, file, options, this.call);
  }

  /** Takes `file` (as read from the document) out of a file field or a gallery; the document, or `null`. */
  removeFile(id: string, field: string, file: FileRef, gallery: boolean, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.writes.removeFile(id, field, file, gallery, options, this.call);
  }

  /**
   * Runs a parsed search. `scope` is ANDed with the client's filter, never replaced by it (the
   * reverse reference routes pass `{ owner: <id> }`). A value the schema cannot cast is a 400
   * `MR_INVALID_VALUE` naming its place; on FerretDB, the forms it gets wrong are a 400
   * `MR_UNSUPPORTED_QUERY`. A sorted search pages by keyset too (`status.next`, bound to this
   * search: another's is a 400 `MR_INVALID_CURSOR`). Counted as `params.count`, else the call's
   * `Prefer: count=`, else the resource's `search.count` says (see `searchCounts`).
   */
  search(params: SearchParams, scope?: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>> {
    return this.searches.search(params, scope, this.call);
  }

  /**
   * Every document a parsed search matches, read through one cursor in pages of `EXPORT_PAGE`, in
   * the search's order (`_id` last), each as `toPlain` makes it: what an export streams. At most
   * `params.limit`; with `params.everyMatch`, more is a 400 `MR_EXPORT_TOO_LARGE`. The cursor has the
   * resource's `exportMaxTimeMS` and is closed when the pages are left unread; nothing is counted.
   */
  exportPages(params: SearchParams, scope?: Record<string, unknown>): AsyncGenerator<Array<PlainDocument<T>>> {
    return this.searches.exportPages(params, scope, this.call);
  }

  /**
   * The `_id`s of at most `limit` documents that match `filter` (or, `outside: true`, that do not), in
   * one query: how a search's condition across a reference finds the documents it names. A value the
   * schema cannot cast is a 400 `MR_INVALID_VALUE` naming its place `at` (`query.owner.birth.$lt`).
   */
  matchingObjectIds(
    filter: Record<string, unknown>,
    limit: number,
    options: { readPreference?: ReadPreferenceMode; outside?: boolean; at?: SearchPlace } = {},
  ): Promise<Types.ObjectId[]> {
    return this.searches.matchingObjectIds(filter, limit, options, this.call);
  }

  /** Of these `_id`s, those that name no document (dangling references). */
  missingObjectIds(objectIds: readonly Types.ObjectId[]): Promise<Types.ObjectId[]> {
    return this.searches.missingObjectIds(objectIds, this.call);
  }

  /** The `_id` of the document a path identifier names: a cast with the default `id` field, else a lookup (`null` when nothing matches). */
  async resolveObjectId(id: string): Promise<Types.ObjectId | null> {
    if (this.definition.idField === '_id') return this.castId(id) as Types.ObjectId;
    return this.existingObjectId(id);
  }

  /** The `_id` of the document a path identifier names, `null` when none exists (always a query). */
  existingObjectId(id: string): Promise<Types.ObjectId | null> {
    return this.store.existingObjectId(id, this.call);
  }

  /** Casts a path identifier to the type of the `id` field; a 400 `MR_INVALID_ID` when it cannot be. */
  castId(id: string): unknown {
    return this.store.castId(id);
  }

  /** Removes the version key and hidden fields from a raw document, and adds the virtuals its schema answers (`virtuals: false` for a `select`). */
  toPlain(doc: object, options?: { virtuals?: boolean }): PlainDocument<T> {
    return this.store.toPlain(doc, options);
  }

  /**
   * `filter`, among the documents the call may read (or, `'write'`, write): ANDed with the resource's
   * row scope and soft delete's condition. What every query of the repository filters on; use it in your own queries of the model.
   */
  scoped(filter: Record<string, unknown> | undefined, access: 'read' | 'write' = 'read'): Record<string, unknown> {
    return this.store.scoped(filter, this.call, access);
  }

  /** Whether the call reads some documents of this resource only (a row scope, soft delete). */
  isScoped(): boolean {
    return this.rules.filter(this.call, 'read') !== undefined;
  }
}
