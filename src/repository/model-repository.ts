import mongoose, { Types, type Model, type ToObjectOptions } from 'mongoose';
import { attachEtag, contentTag, etagOf, versionTag } from '../concurrency/entity-tag.js';
import { routeCountPreference, routeReadPreference, takePrecondition } from '../call/route-context.js';
import { ConditionalWrites, preconditionOf, type Precondition, type WriteOptions } from '../concurrency/conditional-write.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { RepositoryDefinition } from '../definitions/repository-definition.interface.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import { checkFerretDbFilter } from '../query/engine-limits.js';
import type { SearchParams } from '../query/search-params.interface.js';
import { toMergeUpdate, withoutNulls, type MergeUpdate } from '../write/update-document.util.js';
import type { ElementRules } from '../write/element-rules.util.js';
import { CollectionCount } from './collection-count.js';
import { KeysetPage, strip } from './keyset-page.js';
import { invalidCursor, LIBRARY_CURSOR_KEY } from './search-cursor.js';
import { needsCollectionCount, searchCounts } from './match-count.js';
import type { CountPolicy } from '../metadata/count-policies.js';
import { hasDeleteRules, referenceLocks, releaseReferences, targetLocks } from '../references/delete-cascade.js';
import { castPathId } from './document-path.util.js';
import { assertNoCycles } from '../references/reference-cycles.js';
import { resolveReferences } from '../references/reference-resolver.js';
import { searchError, timeLimitAmong, type SearchPlace } from './search-error.util.js';
import { knownServerEngine, serverEngine } from './server-engine.js';
import { writeError } from './write-error.util.js';
import { runBulk, type BulkPlan } from './bulk-writes.js';
import { WriteHooks, type HookedWrite, type ResourceHooks, type WriteEventSink, type WriteOperation } from '../hooks/write-hooks.js';
import type { BulkOptions, BulkReport } from '../interfaces/bulk.interface.js';
import type { FileRef } from '../files/file-ref.js';
import { FileWrites } from '../files/file-writes.js';
import { FileStore } from '../files/file-store.js';
import { referenceLocksOfProcess } from '../references/reference-locks.js';
import { hasAtomicDocumentWrites, WriteSerializer } from './write-serializer.js';
import { copyData, deletePath, flatAccess, nestedAccess, type FieldAccess } from '../utils/object-path.util.js';
import { addVirtuals, answeredVirtuals } from '../utils/schema-virtuals.util.js';
import { allOf } from '../utils/all-of.util.js';
import { readScopeOf, registerReadFilter, RowScopes } from '../scopes/row-scope.js';
import { inTrash, lifeCondition } from '../scopes/soft-delete.js';
import { DocumentHistory, noteWrittenState, type HistoryPage } from './document-history.js';
import { timestampFields } from '../definitions/field-rules.factory.js';
import { currentCall, currentRequest } from '../call/route-call.js';
import type { RowScope, RowScopeFunction } from '../interfaces/row-scope.interface.js';

/**
 * A document as the routes return it: plain data, without the version key and hidden fields.
 *
 * @publicApi
 */
export type PlainDocument<T = Record<string, unknown>> = T & { _id: Types.ObjectId };


/** How many identifiers one `$in` query of `findByObjectIds` names at most. */
const OBJECT_ID_CHUNK = 1000;

/** How many times an element route writes again when other writes moved or changed its element in between. */
const ELEMENT_ATTEMPTS = 8;

/** Options of `findAndUpdate()`. */
interface UpdateOptions {
  merge?: MergeUpdate;
  /** A condition whose failure means the document is as asked already (an add of an identifier there): it is answered, unchanged. */
  condition?: Record<string, unknown>;
  /** A condition whose failure means the write is not for this document (a bulk change's filter): `null` is answered, as for a missing one. */
  where?: Record<string, unknown>;
  precondition?: Precondition;
}

/** One queue per process: two repositories of one collection (two modules) share it. */
const serializer = new WriteSerializer();

/**
 * The one data access service behind every generated route, one instance per resource.
 * Knows Mongoose, knows no HTTP. Inject it in your own code with `@InjectModelRepository(Company)`.
 *
 * Writes take data that was checked first (`checkWriteBody`, as the generated handlers do; your
 * own server-side fields need no check), and then:
 * - store references by `_id`, accepting the referenced resource's own id (a slug) too, and check
 *   that they exist (`MR_REFERENCE_NOT_FOUND`), per reference field;
 * - merge updates at every depth (`null` removes a field; arrays are replaced whole);
 * - run one after the other per document on engines whose single-document writes are not atomic;
 * - increment the document's version key, so that its `ETag` changes with every write;
 * - apply `If-Match` and `If-None-Match` conditions in the write's own filter (`WriteOptions`);
 * - on delete, apply the `onDelete` rules of the fields that reference the document (`DeleteCascade`);
 * - answer failures about the values written as `MR_VALIDATION_FAILED` and `MR_DUPLICATE_KEY`.
 *
 * The single documents it answers carry their entity tag: `etagOf(doc)`.
 *
 * Every query carries `maxTimeMS` (`search.maxTimeMS` of the resource).
 *
 * @publicApi
 */
export class ModelRepository<T = Record<string, unknown>> {
  /** `+secret +password`: see `findAndUpdate()` for why hidden fields are fetched and then dropped. */
  private readonly revealHidden: string;
  /** Hidden paths, split once: `toPlain()` runs for every document of every response. */
  private readonly hiddenPaths: string[][];
  /**
   * The options a created document is read back with: none where the schema sets no `toObject`
   * options, as Mongoose's defaults (no virtuals, getters nor transform) are what a response holds,
   * and its call without options is much cheaper (Mongoose caches that case; see BENCHMARKS.md).
   */
  private readonly plainOptions?: ToObjectOptions;
  /** The virtuals the schema asks to answer (`toJSON: { virtuals: true }`). */
  private readonly virtuals: string[];
  /** The envelope's `count`: collection metadata, never a scan. */
  private readonly collectionCount: CollectionCount;
  /** The references a write names, top-level and inside sub-documents. */
  private readonly references: RepositoryDefinition['references'];
  /** Where the files of its `@FileProp()` fields are (`companies_files`), if it has any. */
  readonly files?: FileStore;
  /** `If-Match` and `If-None-Match` in its writes' filters. */
  private readonly conditions: ConditionalWrites<PlainDocument<T>>;
  /** The writes of its file fields. */
  private readonly fileWrites: FileWrites<PlainDocument<T>>;

  /** The resource's lifecycle hooks (`@GeneratedResource({ hooks })`), if it has any. */
  private readonly writeHooks?: WriteHooks<PlainDocument<T>>;
  /** The resource's row scope (`@GeneratedResource({ scope })`), if it has one: ANDed into every read and write of a request. */
  readonly scopes?: RowScopes;
  /** The versions of its documents (`@GeneratedResource({ history })`), if it keeps them. */
  private readonly versions?: DocumentHistory;

  /**
   * @param extras the resource's lifecycle hooks, run around every write (see `ResourceHooks`),
   * where to emit the events of its stored writes (see `WriteEvent`), and its row scope (see `RowScope`)
   */
  constructor(
    readonly model: Model<T>,
    readonly definition: RepositoryDefinition,
    { hooks, events, scope }: { hooks?: ResourceHooks<T>; events?: WriteEventSink; scope?: RowScope | RowScopeFunction } = {},
  ) {
    if (scope) this.scopes = new RowScopes(definition.name, scope);
    if (definition.history) this.versions = new DocumentHistory(model, definition.history.keep, definition.fields.versionKey!);
    if (scope || definition.softDelete) registerReadFilter(model, () => this.readFilter());
    if (hooks || events) this.writeHooks = new WriteHooks<PlainDocument<T>>(hooks ?? {}, definition.name, (id) => this.findOne(id), events);
    this.references = [...definition.references, ...(definition.embeddedReferences ?? [])];
    this.revealHidden = [...definition.fields.hidden].map((path) => `+${path}`).join(' ');
    this.hiddenPaths = [...definition.fields.hidden].map((path) => path.split('.'));
    this.virtuals = answeredVirtuals(definition.schema);
    if (definition.files?.length) this.files = new FileStore(model.db, `${model.collection.collectionName}_files`);
    this.conditions = new ConditionalWrites<PlainDocument<T>>({
      model,
      name: definition.name,
      idField: definition.idField,
      versionKey: definition.fields.versionKey,
      revealHidden: this.revealHidden,
      maxTimeMS: () => this.maxTimeMS,
      idFilter: (id) => this.writeIdFilter(id),
      castId: (id) => this.castId(id),
      tagged: (raw) => this.tagged(raw),
      findOne: (id) => this.findWritable(id),
      writesFewer: () => this.scopes?.writesFewer() === true,
    });
    this.fileWrites = new FileWrites<PlainDocument<T>>({
      model,
      name: definition.name,
      files: definition.files ?? [],
      store: this.files,
      maxTimeMS: () => this.maxTimeMS,
      idFilter: (id) => this.writeIdFilter(id),
      update: (id, update, options) => this.findAndUpdate(id, update, options),
      updateInTurn: (id, update, options) => this.updateNow(id, update, options),
      inTurn: (id, write) => this.serialized(id, write, true),
      unwritten: (id, precondition, conditional) => this.conditions.unwritten(id, precondition, conditional),
    });
    // A Map would stay a Map, which JSON writes as `{}`: it is read back as the plain object a query gives.
    if (definition.schema.get('toObject') || hasMaps(definition.schema)) this.plainOptions = { virtuals: false, getters: false, transform: false, flattenMaps: true };
    this.collectionCount = new CollectionCount({
      // The driver's collection: a Mongoose aggregate may put a stage before `$collStats`, which must be first.
      collStats: (readPreference) => model.collection.aggregate<{ count?: unknown }>([{ $collStats: { count: {} } }], { maxTimeMS: this.maxTimeMS, readPreference }).toArray(),
      estimated: (readPreference) => {
        const query = model.estimatedDocumentCount().maxTimeMS(this.maxTimeMS);
        return (readPreference ? query.read(readPreference) : query).exec();
      },
    });
  }

  /** Finds the document whose `id` field (default `_id`) equals `id`; `null` when none does. */
  async findOne(id: string): Promise<PlainDocument<T> | null> {
    const doc = await this.reading(this.model.findOne(this.idFilter(id))).maxTimeMS(this.maxTimeMS).lean().exec();
    return doc && this.tagged(doc);
  }

  /** The document whose `id` field equals `id`; a 404 `MR_NOT_FOUND` (an `HttpException`) when none does. */
  async getOne(id: string): Promise<PlainDocument<T>> {
    const doc = await this.findOne(id);
    if (!doc) throw ModelRoutesException.notFound(this.definition.name, id);
    return doc;
  }

  /** Finds a document by its `_id`, whatever the resource's `id` field: how references are stored. */
  async findByObjectId(objectId: Types.ObjectId | string): Promise<PlainDocument<T> | null> {
    const doc = await this.reading(this.model.findOne(this.scoped({ _id: objectId }))).maxTimeMS(this.maxTimeMS).lean().exec();
    return doc && this.tagged(doc);
  }

  /**
   * The documents whose `_id` is one of `objectIds`, each as `findOne` answers it (hidden fields
   * out, its entity tag attached), in no particular order: one query per `OBJECT_ID_CHUNK`
   * identifiers, never one per document. What expanding a reference reads.
   */
  async findByObjectIds(objectIds: readonly unknown[]): Promise<Array<PlainDocument<T>>> {
    const chunks: unknown[][] = [];
    for (let start = 0; start < objectIds.length; start += OBJECT_ID_CHUNK) chunks.push(objectIds.slice(start, start + OBJECT_ID_CHUNK));
    const found = await Promise.all(chunks.map((chunk) => this.reading(this.model.find(this.scoped({ _id: { $in: chunk } }))).maxTimeMS(this.maxTimeMS).lean().exec()));
    return found.flat().map((doc) => this.tagged(doc as object));
  }

  /**
   * The documents whose reference `field` names one of `objectIds`, each as `findOne` answers it,
   * in `sort` order (`_id` breaks ties; default `_id`): one query, at most `limit` documents. What
   * expanding a reverse path reads.
   */
  async findReferencing(field: string, objectIds: readonly unknown[], sort: Record<string, 1 | -1> | undefined, limit: number): Promise<Array<PlainDocument<T>>> {
    const order = { ...sort, ...(sort?._id ? {} : { _id: 1 as const }) };
    const docs = await this.reading(this.model.find(this.scoped({ [field]: { $in: objectIds } })))
      .sort(order)
      .limit(limit)
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec();
    return docs.map((doc) => this.tagged(doc as object));
  }

  /** Creates a document; `null` values are left out; references are resolved and checked; schema validators run. */
  create(data: Record<string, unknown>, options?: Pick<WriteOptions, 'hooks'>): Promise<PlainDocument<T>> {
    return this.hooked({ phase: 'create', operation: 'create' }, options, data, (given) => this.createNow(given), (doc) => ({ doc }));
  }

  private async createNow(data: Record<string, unknown>): Promise<PlainDocument<T>> {
    const values = withoutNulls(data, this.definition.fields);
    this.scopes?.stamp(values);
    const doc = await this.referencing(nestedAccess(values), async () => {
      const resolving = this.resolveReferences(nestedAccess(values));
      if (resolving) await resolving;
      const created = new this.model(values);
      try {
        await created.save();
      } catch (error) {
        throw (await writeError(error, this.model, toMergeUpdate(values, this.definition.fields).$set ?? {})) ?? error;
      }
      return created;
    });
    // `_id` first, as in the documents every other route answers.
    const { _id, ...rest } = (this.plainOptions ? doc.toObject(this.plainOptions) : doc.toObject()) as Record<string, unknown>;
    const created = { _id, ...rest };
    if (this.versions) noteWrittenState(this.model, created);
    return this.tagged(created);
  }

  /**
   * Merges `data` into the document (see `toMergeUpdate`): only the fields it names change, at
   * every depth; their validators run. Returns the updated document, or `null` when none has this id.
   */
  update(id: string, data: Record<string, unknown>, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.updateWhere(id, data, options);
  }

  /** `update()`, of a document that still matches `where` (else nothing is written and `null` answered): a bulk change's write of one of its matches. */
  private updateWhere(id: string, data: Record<string, unknown>, options?: WriteOptions, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    return this.hooked({ phase: 'update', operation: 'update', id }, options, data, (given) => this.updateNowWhere(id, given, options, where), (doc, given) => {
      const changed = changedPaths(toMergeUpdate(given, this.definition.fields));
      return doc && changed.length ? { doc, changed } : undefined;
    });
  }

  private async updateNowWhere(id: string, data: Record<string, unknown>, options?: WriteOptions, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    const update = toMergeUpdate(data, this.definition.fields);
    this.scopes?.checkChanges(update.$set, update.$unset);
    const precondition = this.preconditionOf(id, options);
    if (!update.$set && !update.$unset) return this.conditions.unwritten(id, precondition, true);
    return this.referencing(flatAccess(update.$set ?? {}), async () => {
      const resolving = update.$set && this.resolveReferences(flatAccess(update.$set));
      if (resolving) await resolving;
      if (update.$set && this.definition.references.some((reference) => reference.acyclic && reference.field in update.$set!)) {
        const self = await this.model.findOne(this.idFilter(id)).select('_id').maxTimeMS(this.maxTimeMS).lean().exec();
        // No such document: the write answers its 404.
        if (self) await assertNoCycles(this.model as unknown as Model<unknown>, this.definition.references, (self as { _id: Types.ObjectId })._id, update.$set, this.maxTimeMS);
      }
      return this.findAndUpdate(id, update as Record<string, unknown>, { merge: update, precondition, where });
    });
  }

  /**
   * Adds one identifier to an array of references, once; the document, or `null`. Adding an
   * identifier that is there already writes nothing (timestamps and version included).
   */
  addReference(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('addReference', id, field, options, () => this.addReferenceNow(id, field, objectId, options), (doc) => doc);
  }

  private addReferenceNow(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    const precondition = this.preconditionOf(id, options);
    const access = { get: (path: string) => (path === field ? objectId : undefined) };
    return this.referencing(access, async (locked) => {
      // In the turn of the referenced document's delete: it exists now, or the add is a 404.
      const reference = this.definition.references.find((candidate) => candidate.field === field);
      const target = reference && this.model.db.model(reference.targetName);
      if (locked && target && !(await target.exists(allOf(readScopeOf(target), { _id: objectId })).maxTimeMS(this.maxTimeMS).exec())) {
        throw ModelRoutesException.notFound(reference.targetName, String(objectId));
      }
      return this.findAndUpdate(id, { $addToSet: { [field]: objectId } }, { condition: { [field]: { $ne: objectId } }, precondition });
    });
  }

  /** Removes one identifier from an array of references; the document, or `null`. Removing one that is not there writes nothing. */
  removeReference(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('removeReference', id, field, options, () => this.removeReferenceNow(id, field, objectId, options), (doc) => doc);
  }

  private removeReferenceNow(id: string, field: string, objectId: Types.ObjectId, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.findAndUpdate(id, { $pull: { [field]: objectId } }, { condition: { [field]: objectId }, precondition: this.preconditionOf(id, options) });
  }

  /**
   * Appends one element to the array of sub-documents `field`, with a new `_id`, unless the array
   * holds `maxElements` already (a 409 `MR_ARRAY_FULL`, nothing written): one `$push`, so that
   * concurrent appends are all kept. `element` is checked data (`checkWrite`); its `null`s are left
   * out, as on create; its references are resolved and checked. Returns the document and the new
   * element's `_id`, or `null` when no document has this id.
   */
  addElement(
    id: string,
    field: string,
    element: Record<string, unknown>,
    bounds: { rules: ElementRules; maxElements: number },
    options?: WriteOptions,
  ): Promise<{ doc: PlainDocument<T>; elementId: Types.ObjectId } | null> {
    return this.fieldWrite('addElement', id, field, options, () => this.addElementNow(id, field, element, bounds, options), (added) => added?.doc);
  }

  private async addElementNow(
    id: string,
    field: string,
    element: Record<string, unknown>,
    { rules, maxElements }: { rules: ElementRules; maxElements: number },
    options?: WriteOptions,
  ): Promise<{ doc: PlainDocument<T>; elementId: Types.ObjectId } | null> {
    const precondition = this.preconditionOf(id, options);
    const elementId = new Types.ObjectId();
    const data = { [field]: [{ _id: elementId, ...withoutNulls(element, rules) }] };
    const resolving = this.resolveReferences(nestedAccess(data));
    if (resolving) await resolving;
    // `field.<max - 1>` exists once the array holds `maxElements`: checked in the write's own filter.
    const condition = { [`${field}.${maxElements - 1}`]: { $exists: false } };
    const doc = await this.findAndUpdate(id, { $push: { [field]: data[field][0] } }, { condition, precondition });
    if (!doc) return null;
    if (!elementOf(doc, field, elementId)) {
      throw new ModelRoutesException('MR_ARRAY_FULL', `${this.definition.name} '${id}' holds ${maxElements} elements in ${field}, its maximum: nothing was appended`, [
        { path: field, message: `holds at most ${maxElements} elements` },
      ]);
    }
    return { doc, elementId };
  }

  /**
   * Merges `data` (checked data, its paths relative to the element) into the element `elementId` of
   * the array `field`, as `update` merges into a document: only the fields it names change, `null`
   * removes one. Written at the element's position, on the condition that the element is still
   * there; when other writes moved it in between, written again. Returns the document; `null` when
   * no document has this id; `undefined` when the array holds no such element.
   */
  updateElement(id: string, field: string, elementId: unknown, data: Record<string, unknown>, rules: ElementRules, options?: WriteOptions): Promise<PlainDocument<T> | null | undefined> {
    return this.fieldWrite('updateElement', id, field, options, () => this.updateElementNow(id, field, elementId, data, rules, options), (doc) => doc);
  }

  private async updateElementNow(id: string, field: string, elementId: unknown, data: Record<string, unknown>, rules: ElementRules, options?: WriteOptions): Promise<PlainDocument<T> | null | undefined> {
    const precondition = this.preconditionOf(id, options);
    const changes = { [field]: [data] };
    const resolving = this.resolveReferences(nestedAccess(changes));
    if (resolving) await resolving;
    const merge = toMergeUpdate(changes[field][0], rules);
    return this.writeElement(id, field, elementId, precondition, (index) => {
      const at = (update: Record<string, unknown> | undefined) => update && Object.fromEntries(Object.entries(update).map(([path, value]) => [`${field}.${index}.${path}`, value]));
      const $set = at(merge.$set);
      const $unset = at(merge.$unset);
      return { update: { ...($set && { $set }), ...($unset && { $unset }) }, merge: { $set: $set ?? {} }, condition: { [`${field}.${index}._id`]: elementId } };
    });
  }

  /**
   * Removes the element `elementId` from the array `field`: on MongoDB, one `$pull` of the element
   * with this `_id`. FerretDB v1 pulls by a condition nothing, and by a whole value only where its
   * keys are in the stored order: there the array is written without the element, on the condition
   * that the document is still at the version read (or, without a version key, that the array still
   * has its length and the element its place), and written again otherwise. Returns the document;
   * `null` when no document has this id; `undefined` when the array holds no such element.
   */
  removeElement(id: string, field: string, elementId: unknown, options?: WriteOptions): Promise<PlainDocument<T> | null | undefined> {
    return this.fieldWrite('removeElement', id, field, options, () => this.removeElementNow(id, field, elementId, options), (doc) => doc);
  }

  private async removeElementNow(id: string, field: string, elementId: unknown, options?: WriteOptions): Promise<PlainDocument<T> | null | undefined> {
    const precondition = this.preconditionOf(id, options);
    const atomic = await hasAtomicDocumentWrites(this.model.db);
    const { versionKey } = this.definition.fields;
    return this.writeElement(id, field, elementId, precondition, (index, elements, raw) => {
      if (atomic) return { update: { $pull: { [field]: { _id: elementId } } }, condition: { [`${field}._id`]: elementId } };
      const unchanged = versionKey ? { [versionKey]: raw[versionKey] ?? null } : { [`${field}.${elements.length}`]: { $exists: false } };
      return { update: { $set: { [field]: elements.filter((_element, at) => at !== index) } }, condition: { [`${field}.${index}._id`]: elementId, ...unchanged } };
    });
  }

  /**
   * The element `elementId` of the array `field` of the document `id` names, hidden fields
   * removed, with the document's entity tag; `null` when no document has this id; `undefined` when
   * the array holds no such element.
   */
  async findElement(id: string, field: string, elementId: unknown): Promise<Record<string, unknown> | null | undefined> {
    const doc = await this.findOne(id);
    if (!doc) return null;
    const element = elementOf(doc, field, elementId);
    return element && attachEtag(element, etagOf(doc)!);
  }

  /**
   * Reads the document, finds the element, and writes what `write` makes of its position and
   * the array as stored (hidden fields included), until the write's condition holds: the element as read is still there.
   */
  private async writeElement(
    id: string,
    field: string,
    elementId: unknown,
    precondition: Precondition | undefined,
    write: (
      index: number,
      elements: Array<Record<string, unknown>>,
      raw: Record<string, unknown>,
    ) => { update: Record<string, unknown>; merge?: MergeUpdate; condition: Record<string, unknown> },
  ): Promise<PlainDocument<T> | null | undefined> {
    for (let attempt = 0; attempt < ELEMENT_ATTEMPTS; attempt++) {
      const raw = (await this.model.findOne(this.writeIdFilter(id)).select(this.revealHidden).maxTimeMS(this.maxTimeMS).lean().exec()) as Record<string, unknown> | null;
      if (!raw) return null;
      const elements = (Array.isArray(raw[field]) ? raw[field] : []) as Array<Record<string, unknown>>;
      const index = elements.findIndex((element) => element && String(element._id) === String(elementId));
      if (index < 0) return undefined;
      const { update, merge, condition } = write(index, elements, raw);
      if (Object.keys(update).length === 0) return this.conditions.unwritten(id, precondition, true);
      const doc = await this.findAndUpdate(id, update, { merge, condition, precondition, retry: true });
      if (doc === null) return null;
      // Written, unless another write moved or changed the element in between: then again.
      if (doc) return doc;
    }
    throw new ModelRoutesException(
      'MR_ELEMENT_CONFLICT',
      `${this.definition.name} '${id}': other writes changed ${field} ${ELEMENT_ATTEMPTS} times while this one tried to write its element: nothing was written; try again`,
    );
  }

  /**
   * Deletes the document with this id, then its files, and returns it; `null` when none has this
   * id. First, the `onDelete` rules of the fields that reference it apply (see `DeleteCascade`): a
   * 409 `MR_REFERENCED` while a `restrict` field references it, then `nullify` and `pull`.
   */
  delete(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.deleteWhere(id, options);
  }

  /**
   * Merges `data` into every document `filter` matches, each as `update()` merges it into one
   * (references checked, validators, the version key, write serialisation), a few at a time in
   * `_id` order, each write filtered on `filter` again: a document that another write changed so
   * that it no longer matches is `skipped`. More matches than `maxDocuments` (default
   * `search.bulkMaxDocuments`) is a 400 `MR_BULK_TOO_LARGE` with their count, nothing written; a
   * document whose own write is refused (a validator, a duplicate key) is reported `refused` with
   * that error, and the others are written. `filter` is an engine filter, cast by the schema (a
   * client's must be checked first: `parseSearchBody`). `dryRun` lists the matches and writes nothing.
   *
   * @example
   * ```ts
   * const report = await companies.updateMany({ location: 'Lyon' }, { location: 'Lyon 2e' }, { maxDocuments: 50 });
   * ```
   */
  async updateMany(filter: Record<string, unknown>, data: Record<string, unknown>, options: BulkOptions = {}): Promise<BulkReport> {
    const update = toMergeUpdate(data, this.definition.fields);
    if (!update.$set && !update.$unset) throw ModelRoutesException.invalidBody('body', 'A bulk update needs at least one field to change');
    this.scopes?.checkChanges(update.$set, update.$unset);
    // The references it sets are the same for every match: one that names no document refuses the change whole, before any write (each write checks them again).
    const resolving = update.$set && this.resolveReferences(flatAccess(update.$set));
    if (resolving) await resolving;
    return this.bulk(filter, options, 'updated', async (id, where) => (await this.updateWhere(id, copyData(data), undefined, where)) !== null);
  }

  /**
   * Deletes every document `filter` matches, each as `delete()` deletes one (`onDelete` rules,
   * files, write serialisation), with the bound, the per-document report and the dry run of
   * `updateMany()`: a document another write changed so that it no longer matches is `skipped`,
   * one an `onDelete: 'restrict'` reference keeps is `refused` (409 `MR_REFERENCED`).
   */
  async deleteMany(filter: Record<string, unknown>, options: BulkOptions = {}): Promise<BulkReport> {
    return this.bulk(filter, options, 'deleted', async (id, where) => (await this.deleteWhere(id, undefined, where)) !== null);
  }

  private async bulk(filter: Record<string, unknown>, options: BulkOptions, outcome: BulkPlan['outcome'], write: BulkPlan['write']): Promise<BulkReport> {
    if ((await serverEngine(this.model.db)) === 'ferretdb') this.checkFerretDbSearch(filter);
    const { name, idField, search } = this.definition;
    const max = options.maxDocuments ?? search.bulkMaxDocuments;
    return runBulk({ model: this.model, resource: name, idField, filter: this.scoped(filter, 'write'), max, maxTimeMS: this.maxTimeMS, dryRun: options.dryRun === true, outcome, write });
  }

  /** `delete()`, of a document that still matches `where` (else nothing is written and `null` answered). */
  private deleteWhere(id: string, options?: WriteOptions, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    const run = () => (this.definition.softDelete ? this.markDeleted(id, this.definition.softDelete.field, options, where) : this.deleteNowWhere(id, options, where));
    return this.hooked({ phase: 'delete', operation: 'delete', id }, options, undefined, run, (doc) => doc && { doc });
  }

  /**
   * A soft delete: marks the document (`field`, the time) and answers it, files kept. `restrict`
   * holds, as on a delete (a 409 `MR_REFERENCED`); `nullify` and `pull` wait for the purge, since a
   * restore could not undo them.
   */
  private async markDeleted(id: string, field: string, options?: WriteOptions, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    const precondition = this.preconditionOf(id, options);
    return referenceLocksOfProcess.exclusive(await this.deleteLocks(id), async () => {
      const released = await releaseReferences(this.model, allOf(this.writeIdFilter(id), where), id, this.maxTimeMS, { restrictOnly: true });
      if (!released) return this.conditions.unwritten(id, precondition, false);
      return this.findAndUpdate(id, { $set: { [field]: new Date() } }, { precondition, where });
    });
  }

  /**
   * Restores a document that soft delete marked (`@GeneratedResource({ softDelete })`): it lives
   * again, as it was; `null` when no marked document has this id (one that lives is not in the
   * trash). An update to its hooks (`operation: 'restore'`), a `.updated` event. Its references are
   * not checked again: one whose document was deleted meanwhile reads as missing.
   */
  async restore(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    const field = this.softDeleteField('restore');
    const precondition = () => this.preconditionOf(id, options);
    return this.fieldWrite('restore', id, field, options, () => inTrash(this.definition.name, () => this.findAndUpdate(id, { $set: { [field]: null } }, { precondition: precondition() })), (doc) => doc);
  }

  /**
   * Deletes for good a document that soft delete marked, as `delete()` deletes one of a resource
   * without soft delete (`onDelete` rules, its files); `null` when no marked document has this id.
   * A delete to its hooks (`operation: 'purge'`), a `.deleted` event.
   */
  async purge(id: string, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    this.softDeleteField('purge');
    return this.hooked({ phase: 'delete', operation: 'purge', id }, options, undefined, () => inTrash(this.definition.name, () => this.deleteNowWhere(id, options)), (doc) => doc && { doc });
  }

  /** Runs a parsed search over the documents soft delete marked, as `search()` runs one over the living. */
  async trash(params: SearchParams): Promise<SearchResult<PlainDocument<T>>> {
    this.softDeleteField('trash');
    return inTrash(this.definition.name, () => this.search(params));
  }

  /**
   * The versions of the document `id` names, the latest first, `limit` of them after `skip`
   * (`@GeneratedResource({ history })`): each with the state its write left, as `findOne` answers a
   * document (hidden fields out), and the count of versions kept. `null` when no document the
   * request may read has this id.
   */
  async history(id: string, { limit = 20, skip = 0 }: { limit?: number; skip?: number } = {}): Promise<HistoryPage<PlainDocument<T>> | null> {
    const history = this.historyOf('history');
    const doc = await this.findOne(id);
    if (!doc) return null;
    const { entries, count } = await history.list(doc._id, { limit, skip });
    return { result: entries.map((entry) => ({ ...entry, document: this.toPlain(entry.document) })), status: { count, limit, skip } };
  }

  /**
   * Writes back the state version `version` of the document had (its history's), hidden fields
   * included: each field as it was, those it did not have removed; its timestamps, version and
   * soft delete mark are the document's own. An update to its hooks (`operation: 'revert'`) and
   * its history. `null` when no document the request may write has this id; a 404 `MR_NOT_FOUND`
   * when its history holds no such version.
   */
  async revert(id: string, version: number, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    const history = this.historyOf('revert');
    const current = (await this.model.findOne(this.writeIdFilter(id)).select(this.revealHidden).maxTimeMS(this.maxTimeMS).lean().exec()) as Record<string, unknown> | null;
    if (!current) return this.conditions.unwritten(id, this.preconditionOf(id, options), false);
    const entry = await history.entry(current._id as Types.ObjectId, version);
    if (!entry) throw new ModelRoutesException('MR_NOT_FOUND', `${this.definition.name} '${id}' has no version ${version} in its history`, [{ path: 'version', message: 'no such version' }]);
    const own = new Set(['_id', this.definition.fields.versionKey, ...timestampFields(this.definition.schema), ...(this.definition.softDelete ? [this.definition.softDelete.field] : [])]);
    const $set = Object.fromEntries(Object.entries(entry.document).filter(([field]) => !own.has(field)));
    const $unset = Object.fromEntries(Object.keys(current).filter((field) => !own.has(field) && !(field in $set)).map((field) => [field, 1]));
    const changed = [...Object.keys($set).filter((field) => !sameBson(current[field], $set[field])), ...Object.keys($unset)];
    this.scopes?.checkChanges($set, $unset);
    const update = { $set, ...(Object.keys($unset).length && { $unset }) };
    return this.hooked({ phase: 'update', operation: 'revert', id }, options, undefined, () => this.findAndUpdate(id, update, { precondition: this.preconditionOf(id, options) }), (doc) => doc && { doc, changed });
  }

  private historyOf(method: string): DocumentHistory {
    if (!this.versions) throw new Error(`ModelRepository.${method}(): ${this.definition.name} keeps no history (@GeneratedResource({ history: true }))`);
    return this.versions;
  }

  private softDeleteField(method: string): string {
    if (!this.definition.softDelete) throw new Error(`ModelRepository.${method}(): ${this.definition.name} has no soft delete (@GeneratedResource({ softDelete: true }))`);
    return this.definition.softDelete.field;
  }

  private async deleteNowWhere(id: string, options?: WriteOptions, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    const precondition = this.preconditionOf(id, options);
    // The references' locks before the document's turn, as writes that reference it take them: never the other way round.
    const doc = await referenceLocksOfProcess.exclusive(await this.deleteLocks(id), () =>
      this.serialized(id, async () => {
        const target = await this.conditions.writeFilter(id, precondition, where);
        const released = target && (await releaseReferences(this.model, target.filter, id, this.maxTimeMS));
        return released && (await this.model.findOneAndDelete(target.filter).select(this.revealHidden).maxTimeMS(this.maxTimeMS).lean().exec());
      }),
    );
    if (!doc) return this.conditions.unwritten(id, precondition, false);
    if (this.versions) noteWrittenState(this.model, doc as object, true);
    await this.fileWrites.release(doc as Record<string, unknown>);
    return this.toPlain(doc as object);
  }

  /**
   * Deletes the files of this resource's bucket that no document holds and that were stored more
   * than `olderThanMs` ago (default one hour; younger ones may belong to an upload under way):
   * what a process stopped between storing a file and writing its document (or between writing a
   * document and deleting the file it replaced) leaves behind, with no transaction to undo it.
   * Run it now and then (a scheduled job). Returns how many it deleted; 0 without file fields.
   *
   * @example
   * ```ts
   * const removed = await companies.removeOrphanFiles({ olderThanMs: 24 * 3600 * 1000 });
   * ```
   */
  async removeOrphanFiles({ olderThanMs = 3_600_000 }: { olderThanMs?: number } = {}): Promise<number> {
    return this.fileWrites.removeOrphans(olderThanMs);
  }

  /**
   * Stores `file` in a file field if the field still holds the file `replaces` (or none, without
   * it): a compare-and-swap, so that of two uploads at once, each knows which file it replaced.
   * Returns the document (holding `file` if it was stored), or `null` when none has this id.
   */
  replaceFile(id: string, field: string, file: FileRef, replaces: Types.ObjectId | undefined, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('setFile', id, field, options, () => this.fileWrites.replace(id, field, file, replaces, this.preconditionOf(id, options)), (doc) => doc);
  }

  /**
   * Stores `file` in a single-file field in place of whatever file it holds, and says which one
   * that was (for the caller to delete): the field is read and then written on the condition that
   * it still holds what was read, in one turn of the document's writes (so, within one process, the
   * first attempt lands, whatever the engine), again if another writer (another process, or your
   * own code writing the field directly) got in between, at most `FILE_SWAP_ATTEMPTS` times; past them a 409
   * `MR_WRITE_CONFLICT` (with `Retry-After`), nothing written. `null` when no document has this id.
   */
  async swapFile(id: string, field: string, file: FileRef, options?: WriteOptions): Promise<{ document: PlainDocument<T>; replaced?: FileRef } | null> {
    return this.fieldWrite('setFile', id, field, options, () => this.fileWrites.swap(id, field, file, this.preconditionOf(id, options)), (swapped) => swapped?.document);
  }

  /**
   * Appends `file` to a gallery; the document, or `null`. A gallery declared with `@FileProp()`
   * holding its `maxFiles` already is a 409 `MR_GALLERY_FULL`, checked in the write's own filter.
   */
  async addFile(id: string, field: string, file: FileRef, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('addFile', id, field, options, () => this.fileWrites.add(id, field, file, this.preconditionOf(id, options)), (doc) => doc);
  }

  /**
   * Takes `file` (as read from the document) out of a file field or a gallery; the document, or
   * `null`. A gallery's element is pulled by its whole value: the engines match it the same way.
   */
  removeFile(id: string, field: string, file: FileRef, gallery: boolean, options?: WriteOptions): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('removeFile', id, field, options, () => this.fileWrites.remove(id, field, file, gallery, this.preconditionOf(id, options)), (doc) => doc);
  }

  /**
   * The update of the document `id` names, where `condition` (if any) and `precondition` hold too,
   * with its version incremented. Where it matches nothing: `null` if no document has this id, a 412
   * if `precondition` fails, else (the `condition` failed: nothing to change) the document.
   */
  private findAndUpdate(id: string, update: Record<string, unknown>, options: UpdateOptions): Promise<PlainDocument<T> | null>;
  /** With `retry`: `undefined` where the `condition` failed and the `precondition` (if any) holds, for the caller to read again and retry. */
  private findAndUpdate(id: string, update: Record<string, unknown>, options: UpdateOptions & { retry: true }): Promise<PlainDocument<T> | null | undefined>;
  private findAndUpdate(id: string, update: Record<string, unknown>, options: UpdateOptions & { retry?: true }): Promise<PlainDocument<T> | null | undefined> {
    return this.serialized(id, () => this.updateNow(id, update, options));
  }

  /** `findAndUpdate()` without waiting for the other writes to the document: for a caller that runs in its turn already. */
  private updateNow(id: string, update: Record<string, unknown>, options: UpdateOptions): Promise<PlainDocument<T> | null>;
  private updateNow(id: string, update: Record<string, unknown>, options: UpdateOptions & { retry?: true }): Promise<PlainDocument<T> | null | undefined>;
  private async updateNow(id: string, update: Record<string, unknown>, { merge, condition, where, precondition, retry }: UpdateOptions & { retry?: true }): Promise<PlainDocument<T> | null | undefined> {
    const { versionKey } = this.definition.fields;
    const versioned = versionKey ? { ...update, $inc: { ...(update.$inc as object), [versionKey]: 1 } } : update;
    const target = await this.conditions.writeFilter(id, precondition, where ? allOf(condition, where) : condition);
    try {
      // Selecting the hidden fields keeps Mongoose from sending a projection with findAndModify:
      // FerretDB v1 does not implement one. They are dropped by toPlain() before anything returns.
      const doc =
        target &&
        (await this.model
          .findOneAndUpdate(target.filter, versioned, { returnDocument: 'after', runValidators: true, context: 'query' })
          .select(this.revealHidden)
          .maxTimeMS(this.maxTimeMS)
          .lean()
          .exec());
      if (doc) {
        if (this.versions) noteWrittenState(this.model, doc as object);
        return this.tagged(doc as object);
      }
      return retry ? this.conditions.unmatched(id, precondition) : this.conditions.unwritten(id, precondition, condition !== undefined);
    } catch (error) {
      throw (await writeError(error, this.model, merge?.$set ?? {})) ?? error;
    }
  }

  /**
   * Runs `run` between the hooks of its phase, if the resource has any and `options` does not turn
   * them off (see `ResourceHooks`): the before-hook may change `data` or refuse; the after-hook sees
   * the document `stored` finds in the result, with its changed paths (none found: nothing was
   * written, no after-hook).
   */
  private async hooked<V extends Record<string, unknown> | undefined, R>(
    write: HookedWrite,
    options: Pick<WriteOptions, 'hooks'> | undefined,
    data: V,
    run: (data: V) => Promise<R>,
    stored: (result: R, data: V) => { doc: PlainDocument<T>; changed?: string[] } | null | undefined,
  ): Promise<R> {
    const hooks = this.writeHooks?.has(write.phase) ? this.writeHooks : undefined;
    if (!hooks && !this.versions) return run(data);
    // `{ hooks: false }` skips the hooks, not the event nor the history: they tell of every stored write.
    const skipped = options?.hooks === false;
    const given = skipped || !hooks ? data : await hooks.before(write, data);
    const { result, written } = this.versions ? await this.versions.listen(() => run(given)) : { result: await run(given), written: undefined };
    const done = stored(result, given);
    if (done && written?.state) await this.versions!.record(written as typeof written & { state: Record<string, unknown> }, { ...writer(this.definition.history?.actor), operation: write.operation, changed: done.changed });
    if (done && hooks) await hooks.after(write, write.id ?? String((done.doc as Record<string, unknown>)[this.definition.idField]), done.doc, done.changed, !skipped);
    return result;
  }

  /** A write of one field of the document `id` names (an update): its hooks, with the field as what changed. */
  private fieldWrite<R>(operation: WriteOperation, id: string, field: string, options: WriteOptions | undefined, run: () => Promise<R>, docOf: (result: R) => PlainDocument<T> | null | undefined): Promise<R> {
    return this.hooked({ phase: 'update', operation, id, field }, options, undefined, run, (result) => {
      const doc = docOf(result);
      return doc ? { doc, changed: [field] } : undefined;
    });
  }

  /** The conditions of a write: those given, else the request's for this document (see `preconditionOf`). */
  private preconditionOf(id: string, options: WriteOptions | undefined): Precondition | undefined {
    return preconditionOf(options, () => takePrecondition(this.definition.name, id));
  }

  /**
   * Runs a parsed search. `scope` is ANDed with the client's filter, never replaced by it:
   * the reverse reference routes pass `{ owner: <id> }` there. A value the schema cannot cast is
   * a 400 `MR_INVALID_VALUE` naming its place in the query (`query.employees`). On FerretDB, the
   * `$elemMatch` forms it lacks or gets wrong are a 400 `MR_UNSUPPORTED_QUERY` (see `checkFerretDbFilter`).
   *
   * A sorted search pages by keyset too: when documents follow its page, `status.next` is the cursor
   * that continues after it (`params.after`), bound to this resource, `scope`, sort and filter
   * (`KeysetPage`); another search's cursor is a 400 `MR_INVALID_CURSOR`.
   *
   * The matches are counted as `params.count` says, else the request's `Prefer: count=`, else the
   * resource's `search.count` (see `searchCounts`): an exact count beside the page, an estimate after it.
   */
  async search(params: SearchParams, scope?: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>> {
    if ((await serverEngine(this.model.db)) === 'ferretdb') this.checkFerretDbSearch(params.filter);
    const { filter, sort, keyset, page } = this.searchPlan(params, scope);
    // The sort's fields that `select` leaves out are read for the cursor, then taken out.
    const added = keyset && params.select ? keyset.unselected(params.select) : [];
    const projection = params.select && Object.fromEntries([...params.select, ...added].map((field) => [field, 1]));
    // One document more than the page tells whether another page follows.
    const query = this.reading(this.model.find(page, projection)).skip(params.skip).limit(keyset ? params.limit + 1 : params.limit).maxTimeMS(this.maxTimeMS).lean();
    if (sort) query.sort(sort);
    // Unfiltered: no condition but the row scope's, whose documents are the collection as this request sees it.
    const unfiltered = scope === undefined && Object.keys(params.filter).length === 0;
    const plan = { policy: params.count ?? routeCountPreference() ?? this.definition.search.count, unfiltered, estimateLimit: this.definition.search.estimateLimit };
    const countMatches = (limit?: number) => {
      const counting = this.reading(this.model.countDocuments(filter)).maxTimeMS(this.maxTimeMS);
      return (limit === undefined ? counting : counting.limit(limit)).exec();
    };
    // An exact count goes beside the page, as a hand-written search sends it: a full page waits for the slower of the two.
    const exactCount = plan.policy === 'exact' ? countMatches() : undefined;
    const operations: Array<Promise<unknown> | undefined> = [query.exec(), needsCollectionCount(plan) ? this.collectionSize(plan.policy) : undefined, exactCount];
    try {
      const [found, collection] = (await Promise.all(operations)) as [Array<Record<string, unknown>>, number | undefined];
      const more = keyset ? found.length > params.limit : undefined;
      const docs = more ? found.slice(0, params.limit) : found;
      const next = more ? keyset!.next(docs[params.limit - 1]) : undefined;
      if (added.length) for (const doc of docs) strip(doc, added, params.select!);
      const result = docs.map((doc) => this.toPlain(doc, { virtuals: !params.select }));
      const read = { skip: params.skip, limit: params.limit, found: docs.length, ...(more !== undefined && { more }), ...(params.after !== undefined && { continued: true }) };
      const { count, match_count, counted } = await searchCounts(plan, read, {
        matches: (limit) => {
          if (limit === undefined && exactCount) return exactCount;
          const pending = countMatches(limit);
          operations.push(pending);
          return pending;
        },
        ...(collection === undefined ? {} : { collection }),
      });
      return {
        status: { count, search_count: result.length, ...(match_count === undefined ? {} : { match_count }), counted, limit: params.limit, skip: params.skip, ...(next && { next }) },
        result,
      };
    } catch (error) {
      const cause = await timeLimitAmong(operations, error);
      throw searchError(cause, params.filter) ?? cause;
    }
  }

  /**
   * Every document a parsed search matches (its filter, sort, select, `skip` or `after`; `scope`
   * ANDed as `search` does), read through one cursor of the engine in pages of `EXPORT_PAGE`
   * documents, in the search's order with `_id` last (`_id` alone without a sort), each as `toPlain`
   * makes it: what an export streams. At most `params.limit`; with `params.everyMatch`, a search
   * that matches more is a 400 `MR_EXPORT_TOO_LARGE`, thrown when the document past the bound is
   * read. The cursor has the resource's `exportMaxTimeMS`, and is closed when the pages are left
   * unread (the client went away); nothing is counted.
   */
  async *exportPages(params: SearchParams, scope?: Record<string, unknown>): AsyncGenerator<Array<PlainDocument<T>>> {
    if ((await serverEngine(this.model.db)) === 'ferretdb') this.checkFerretDbSearch(params.filter);
    const { sort, page } = this.searchPlan(params, scope);
    const projection = params.select && Object.fromEntries(params.select.map((field) => [field, 1]));
    const read = params.everyMatch ? params.limit + 1 : params.limit;
    const cursor = this.reading(this.model.find(page, projection))
      .sort(sort ?? { _id: 1 })
      .skip(params.skip)
      .limit(read)
      .batchSize(EXPORT_PAGE)
      .maxTimeMS(this.definition.search.exportMaxTimeMS)
      .lean()
      .cursor();
    try {
      let pageOf: Array<PlainDocument<T>> = [];
      let count = 0;
      for await (const doc of cursor) {
        if (++count > params.limit) throw exportTooLarge(this.definition.name, params.limit);
        pageOf.push(this.toPlain(doc as object, { virtuals: !params.select }));
        if (pageOf.length === EXPORT_PAGE) {
          yield pageOf;
          pageOf = [];
        }
      }
      if (pageOf.length) yield pageOf;
    } catch (error) {
      throw searchError(error, params.filter) ?? error;
    } finally {
      await cursor.close();
    }
  }

  /**
   * What the query of a search is made of: the client's filter with `scope`, the sort with `_id` as
   * its tie-breaker, the keyset of a sorted search (its answer carries the cursor after its page,
   * `status.next`), and the page's filter (after the cursor `after`, if sent).
   */
  private searchPlan(params: SearchParams, routeScope: Record<string, unknown> | undefined) {
    const scope = this.scoped(routeScope);
    const filter = allOf(scope, params.filter);
    // A tie-breaker on _id makes paging through equal sort keys deterministic.
    const sort = params.sort && { ...params.sort, ...(params.sort._id ? {} : { _id: 1 as const }) };
    const keyset = sort && new KeysetPage({ resource: this.definition.name, scope: Object.keys(scope).length ? scope : undefined, sort, filter: params.sentFilter ?? params.filter }, this.definition.search.cursorSecret ?? LIBRARY_CURSOR_KEY);
    const page = params.after === undefined ? filter : allOf(filter, this.afterCursor(keyset, params.after));
    return { filter, sort, keyset, page };
  }

  /**
   * The condition of the documents after the cursor `after` of a sorted search (`keyset`); a 400
   * `MR_INVALID_CURSOR` when the search is not sorted, the cursor is another search's, or one of
   * its values cannot be cast to its field (a forged cursor: made with the library's public key).
   */
  private afterCursor(keyset: KeysetPage | undefined, after: unknown): Record<string, unknown> {
    if (!keyset) throw invalidCursor('after continues a sorted search: send the sort of the page that gave it');
    const condition = keyset.after(after);
    try {
      this.model.find(condition).cast();
    } catch {
      throw invalidCursor('after holds a value that its field cannot hold: send status.next of a page as it came');
    }
    return condition;
  }

  /**
   * Refuses the forms FerretDB would answer wrongly (an empty result), naming their place; a value
   * that cannot be cast is answered first, as on MongoDB (a client's mistake before an engine's limit).
   */
  private checkFerretDbSearch(filter: Record<string, unknown>): void {
    try {
      this.model.find(filter).cast();
    } catch (error) {
      throw searchError(error, filter) ?? error;
    }
    checkFerretDbFilter(filter);
  }

  /**
   * The `_id`s of at most `limit` documents that match `filter` (or, `outside: true`, that do not),
   * in one query reading where `readPreference` says, with the resource's `maxTimeMS`: how a
   * search's condition across a reference finds the documents it names (`resolveRelationFilters`).
   * `filter` is a checked client filter: a value the schema cannot cast is a 400 `MR_INVALID_VALUE`
   * naming its place `at` (`query.owner.birth.$lt`), as `search` names it.
   */
  async matchingObjectIds(
    filter: Record<string, unknown>,
    limit: number,
    { readPreference, outside = false, at }: { readPreference?: ReadPreferenceMode; outside?: boolean; at?: SearchPlace } = {},
  ): Promise<Types.ObjectId[]> {
    try {
      // Cast first, so that a value the schema refuses is named as the client wrote it, not inside `$nor`.
      this.model.find(filter).cast();
    } catch (error) {
      throw searchError(error, filter, at) ?? error;
    }
    if ((await serverEngine(this.model.db)) === 'ferretdb') checkFerretDbFilter(filter, at?.path);
    const query = this.model.find(this.scoped(outside ? { $nor: [filter] } : filter), { _id: 1 }).limit(limit).batchSize(limit).maxTimeMS(this.maxTimeMS).lean();
    const found = await (readPreference ? query.read(readPreference) : query).exec();
    return found.map((doc) => (doc as unknown as { _id: Types.ObjectId })._id);
  }

  /** Of these `_id`s, those that name no document (dangling references). */
  async missingObjectIds(objectIds: readonly Types.ObjectId[]): Promise<Types.ObjectId[]> {
    if (objectIds.length === 0) return [];
    const found = await this.reading(this.model.find(this.scoped({ _id: { $in: objectIds } }), { _id: 1 })).maxTimeMS(this.maxTimeMS).lean().exec();
    const existing = new Set(found.map((doc) => String((doc as unknown as { _id: unknown })._id)));
    return objectIds.filter((objectId) => !existing.has(String(objectId)));
  }

  /**
   * The `_id` of the document a path identifier names. With the default `id` field this is just
   * a cast; with another `id` field (a slug) it is a lookup, `null` when nothing matches.
   */
  async resolveObjectId(id: string): Promise<Types.ObjectId | null> {
    if (this.definition.idField === '_id') return this.castId(id) as Types.ObjectId;
    return this.existingObjectId(id);
  }

  /** The `_id` of the document a path identifier names, `null` when none exists (always a query). */
  async existingObjectId(id: string): Promise<Types.ObjectId | null> {
    const doc = await this.reading(this.model.findOne(this.idFilter(id))).select('_id').maxTimeMS(this.maxTimeMS).lean().exec();
    return (doc?._id as Types.ObjectId | undefined) ?? null;
  }

  /** Casts a path identifier to the type of the `id` field; a 400 `MR_INVALID_ID` when it cannot be. */
  castId(id: string): unknown {
    return castPathId(id, this.definition);
  }

  /** `toPlain`, with the document's entity tag attached (see `etagOf`): its version, or a hash of its content without a version key. */
  private tagged(doc: object): PlainDocument<T> {
    const { versionKey } = this.definition.fields;
    if (!versionKey) {
      const plain = this.toPlain(doc);
      return attachEtag(plain, contentTag(plain));
    }
    const raw = doc as Record<string, unknown>;
    const tag = versionTag(raw._id, raw[versionKey]); // before toPlain() drops the version key
    return attachEtag(this.toPlain(doc), tag);
  }

  /**
   * Removes the version key and hidden fields from a raw document, and adds the virtuals its schema
   * asks to answer (computed without the hidden fields, so that every route answers the same);
   * `virtuals: false` for a document of some fields only (a search's `select`).
   */
  toPlain(doc: object, { virtuals = true } = {}): PlainDocument<T> {
    const plain = doc as Record<string, unknown>;
    const { versionKey } = this.definition.fields;
    if (versionKey) delete plain[versionKey];
    for (const path of this.hiddenPaths) deletePath(plain, path);
    if (virtuals && this.virtuals.length) addVirtuals(this.model, this.virtuals, plain);
    return plain as PlainDocument<T>;
  }

  /** The query, reading where the generated route in progress says (its `readPreference` option), if it says. */
  private reading<Q extends { read(mode: string): Q }>(query: Q): Q {
    const mode = routeReadPreference();
    return mode ? query.read(mode) : query;
  }

  private get maxTimeMS(): number {
    return this.definition.search.maxTimeMS;
  }

  /**
   * Runs a write holding the locks of the documents it references through fields with an
   * `onDelete` rule (see `referenceLocks`), so that a delete of one of them in this process runs
   * wholly before or wholly after it; `locked` says whether it holds any. On every engine: the
   * window between a reference's check and its write is the library's, not the engine's.
   */
  private referencing<R>(data: Pick<FieldAccess, 'get'>, write: (locked: boolean) => Promise<R>): Promise<R> {
    const keys = referenceLocks(this.model, data);
    return keys.length ? referenceLocksOfProcess.shared(keys, () => write(true)) : write(false);
  }

  /** The locks a delete of the document `id` names takes: none unless an `onDelete` rule targets this model. */
  private async deleteLocks(id: string): Promise<string[]> {
    if (!hasDeleteRules(this.model)) return [];
    if (this.definition.idField === '_id') return targetLocks(this.model, [this.castId(id)]);
    // Writes may name it by its slug or by its `_id`: both locks.
    return targetLocks(this.model, [id, await this.existingObjectId(id)]);
  }

  private resolveReferences(data: Parameters<typeof resolveReferences>[2]): Promise<void> | undefined {
    return resolveReferences(this.model.db, this.references, data, this.maxTimeMS);
  }

  /**
   * Runs a write to the document `id` names after the writes to it in progress, where the engine
   * needs that, or `always` (a read and a write that depends on it, which no engine applies atomically).
   */
  private serialized<R>(id: string, write: () => Promise<R>, always = false): Promise<R> {
    const queued = () => serializer.run(`${this.model.db.name}/${this.model.collection.collectionName}/${id}`, write);
    if (always) return queued();
    // Known after the connection's first write: no promise to wait on in the path of every write.
    const engine = knownServerEngine(this.model.db);
    if (engine) return engine === 'mongodb' ? write() : queued();
    return hasAtomicDocumentWrites(this.model.db).then((atomic) => (atomic ? write() : queued()));
  }

  /** The filter of the document `id` names, among those the request may read. */
  private idFilter(id: string): Record<string, unknown> {
    return this.scoped({ [this.definition.idField]: this.castId(id) });
  }

  /** The filter of the document `id` names, among those the request may write. */
  private writeIdFilter(id: string): Record<string, unknown> {
    return this.scoped({ [this.definition.idField]: this.castId(id) }, 'write');
  }

  /**
   * `filter`, among the documents the request in progress may read (or, `'write'`, write): ANDed
   * with the resource's row scope (`@GeneratedResource({ scope })`) for that request, and with the
   * condition of its living documents where it has soft delete; as given otherwise. What every
   * query of the repository filters on; use it in your own queries of the model.
   */
  scoped(filter: Record<string, unknown> | undefined, access: 'read' | 'write' = 'read'): Record<string, unknown> {
    const scope = access === 'read' ? this.readFilter() : this.writeFilter();
    return scope ? allOf(scope, filter) : (filter ?? {});
  }

  /** The documents the request in progress may read: its row scope, the living ones; `undefined`: all. */
  private readFilter(): Record<string, unknown> | undefined {
    return this.rowFilter(this.scopes?.read());
  }

  /** The documents the request in progress may write. */
  private writeFilter(): Record<string, unknown> | undefined {
    return this.rowFilter(this.scopes?.write());
  }

  /** A scope's filter, with the condition of the living documents where the resource has soft delete. */
  private rowFilter(scope: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const life = this.definition.softDelete && lifeCondition(this.definition.name, this.definition.softDelete.field);
    return life ? allOf(life, scope) : scope;
  }

  /** Whether the request in progress reads some documents of this resource only (a row scope, soft delete). */
  isScoped(): boolean {
    return this.readFilter() !== undefined;
  }

  /**
   * The document `id` names, as a write would find it: `null` when it is not among those the
   * request may read; a 403 `MR_OUT_OF_SCOPE` when it is, but not among those it may write.
   */
  private async findWritable(id: string): Promise<PlainDocument<T> | null> {
    if (!this.scopes?.writesFewer()) return this.findOne(id);
    const raw = await this.model.findOne(this.writeIdFilter(id)).maxTimeMS(this.maxTimeMS).lean().exec();
    if (raw) return this.tagged(raw);
    if (await this.findOne(id)) throw new ModelRoutesException('MR_OUT_OF_SCOPE', `${this.definition.name} '${id}' may be read, not written, by this request`);
    return null;
  }

  /**
   * The envelope's `count`: the collection's size from its metadata; with a row scope or soft
   * delete, the documents the request may read, counted (metadata would tell the size of every
   * tenant's data): wholly for an exact count, up to `search.estimateLimit` + 1 for an estimate (a
   * lower bound past it, as an estimate of a filtered search is bounded), and not at all for
   * `none` (`undefined`: the count is then what the page shows, `skip` and its documents).
   */
  private collectionSize(policy: CountPolicy): Promise<number | undefined> | undefined {
    const scope = this.readFilter();
    if (!scope) return this.collectionCount.read(routeReadPreference());
    if (policy === 'none') return undefined;
    const counting = this.reading(this.model.countDocuments(scope)).maxTimeMS(this.maxTimeMS);
    return (policy === 'exact' ? counting : counting.limit(this.definition.search.estimateLimit + 1)).exec();
  }


}

/**
 * What an export's work gives: the pages of the documents to write, in order (`exportPages`).
 *
 * @publicApi
 */
export type ExportPages<T = Record<string, unknown>> = AsyncIterable<Array<PlainDocument<T>>>;

/** The documents an export reads per round trip (the cursor's `batchSize`), and hands on at once. */
export const EXPORT_PAGE = 500;

/** A 400 `MR_EXPORT_TOO_LARGE`: the export's search matches more than `limit` documents. */
function exportTooLarge(resource: string, limit: number): ModelRoutesException {
  return new ModelRoutesException(
    'MR_EXPORT_TOO_LARGE',
    `The export matches more than ${limit} ${resource} documents (search.exportMaxRows): narrow the filter, or send a limit to export the first ones`,
    [{ path: 'limit', message: `at most ${limit}` }],
  );
}


/** Whether a schema has a Map at any depth (in nested objects and sub-documents too). */
function hasMaps(schema: mongoose.Schema): boolean {
  let found = false;
  schema.eachPath((_path, type) => {
    found ||= type.instance === 'Map';
  });
  return found || schema.childSchemas.some((child) => hasMaps(child.schema));
}

/** The element of the array `field` of a document whose `_id` is `elementId`, if it holds one. */
function elementOf(doc: Record<string, unknown>, field: string, elementId: unknown): Record<string, unknown> | undefined {
  const elements = doc[field];
  if (!Array.isArray(elements)) return undefined;
  return elements.find((element) => element && String((element as Record<string, unknown>)._id) === String(elementId)) as Record<string, unknown> | undefined;
}

/** The dotted paths an update sets or removes. */
function changedPaths(update: MergeUpdate): string[] {
  return [...Object.keys(update.$set ?? {}), ...Object.keys(update.$unset ?? {})];
}

/** Who and through which route the write in progress is made: what its history entry says of it. */
function writer(actor: ((request: any) => string | undefined) | undefined): { by?: string; route?: string } {
  const call = currentCall();
  const request = currentRequest();
  const by = request && actor ? actor(request) : undefined;
  return { ...(by !== undefined && { by: String(by) }), ...(call && { route: `${call.row.method} ${call.row.path(call.plan.names)}` }) };
}

/** Whether two values of a raw document are the same (as BSON: an ObjectId and a Date compared by value). */
function sameBson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
