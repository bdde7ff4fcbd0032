import mongoose, { type Model, type ToObjectOptions, type Types } from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import { takePrecondition } from '../call/call-context.js';
import { attachEtag, contentTag, versionTag } from '../concurrency/entity-tag.js';
import { ConditionalWrites, preconditionOf, type Precondition, type WriteOptions } from '../concurrency/conditional-write.js';
import type { RepositoryDefinition } from '../definitions/repository-definition.interface.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { FileStore } from '../files/file-store.js';
import { FileWrites } from '../files/file-writes.js';
import { hasDeleteRules, referenceLocks, releaseReferences, targetLocks } from '../references/delete-cascade.js';
import { referenceLocksOfProcess } from '../references/reference-locks.js';
import { resolveReferences } from '../references/reference-resolver.js';
import type { RulePipeline } from '../rules/rule-pipeline.js';
import type { WriteRecord } from '../rules/rule-stage.js';
import { allOf } from '../utils/all-of.util.js';
import { deletePath, flatAccess, nestedAccess, type FieldAccess } from '../utils/object-path.util.js';
import { toMergeUpdate } from '../write/update-document.util.js';
import { addVirtuals, answeredVirtuals } from '../utils/schema-virtuals.util.js';
import { castPathId } from './document-path.util.js';
import { writeError } from './write-error.util.js';
import { knownServerEngine } from './server-engine.js';
import { withIdLast } from './sort-order.js';
import { hasAtomicDocumentWrites, WriteSerializer } from './write-serializer.js';

/**
 * A document as the routes return it: plain data, without the version key and hidden fields.
 *
 * @publicApi
 */
export type PlainDocument<T = Record<string, unknown>> = T & { _id: Types.ObjectId };

/** One write in progress, handed down from the repository's entry to Mongoose: the call it serves, and what its rules note (history). */
export interface CoreWrite {
  readonly call: CallContext;
  readonly record?: WriteRecord;
}

/** Options of `findAndUpdate()`. */
export interface UpdateOptions {
  merge?: { $set?: Record<string, unknown> };
  /** A condition whose failure means the document is as asked already (an add of an identifier there): it is answered, unchanged. */
  condition?: Record<string, unknown>;
  /** A condition whose failure means the write is not for this document (a bulk change's filter): `null` is answered, as for a missing one. */
  where?: Record<string, unknown>;
  precondition?: Precondition;
  /** The sub-type (discriminator) of the document: its model casts and validates the update. */
  subType?: string;
}

/** How many identifiers one `$in` query of `findByObjectIds` names at most. */
const OBJECT_ID_CHUNK = 1000;

/** One queue per process: two repositories of one collection (two modules) share it. */
const serializer = new WriteSerializer();

/**
 * The document operations of one resource, under `ModelRepository`: reads, the conditional update,
 * the delete, the order of writes per document, the locks of references, and a raw document made
 * into what the routes answer. Every operation takes the call it serves; the rules (`RulePipeline`)
 * give the condition of the documents that call reaches. Knows Mongoose, knows no HTTP.
 */
export class DocumentStore<T> {
  /** `+secret +password`: see `updateNow()` for why hidden fields are fetched and then dropped. */
  readonly revealHidden: string;
  /** Hidden paths, split once: `toPlain()` runs for every document of every response. */
  private readonly hiddenPaths: string[][];
  /**
   * The options a created document is read back with: none where the schema sets no `toObject`
   * options, as Mongoose's defaults (no virtuals, getters nor transform) are what a response holds,
   * and its call without options is much cheaper (Mongoose caches that case; see BENCHMARKS.md).
   */
  readonly plainOptions?: ToObjectOptions;
  /** The virtuals the schema asks to answer (`toJSON: { virtuals: true }`). */
  private readonly virtuals: string[];
  /** The references a write names, top-level and inside sub-documents. */
  private readonly references: RepositoryDefinition['references'];
  /** Where the files of its `@FileProp()` fields are (`companies_files`), if it has any. */
  readonly files?: FileStore;
  /** `If-Match` and `If-None-Match` in its writes' filters. */
  readonly conditions: ConditionalWrites<PlainDocument<T>, CallContext>;
  /** The writes of its file fields. */
  readonly fileWrites: FileWrites<PlainDocument<T>, CoreWrite>;

  constructor(
    readonly model: Model<T>,
    readonly definition: RepositoryDefinition,
    readonly rules: RulePipeline<PlainDocument<T>>,
  ) {
    this.references = [...definition.references, ...(definition.embeddedReferences ?? [])];
    this.revealHidden = [...definition.fields.hidden].map((path) => `+${path}`).join(' ');
    this.hiddenPaths = [...definition.fields.hidden].map((path) => path.split('.'));
    this.virtuals = answeredVirtuals(definition.schema);
    if (definition.files?.length) this.files = new FileStore(model.db, `${model.collection.collectionName}_files`);
    // A Map would stay a Map, which JSON writes as `{}`: it is read back as the plain object a query gives.
    if (definition.schema.get('toObject') || hasMaps(definition.schema))
      this.plainOptions = { virtuals: false, getters: false, transform: false, flattenMaps: true };
    this.conditions = new ConditionalWrites<PlainDocument<T>, CallContext>({
      model,
      name: definition.name,
      idField: definition.idField,
      versionKey: definition.fields.versionKey,
      revealHidden: this.revealHidden,
      maxTimeMS: () => this.maxTimeMS,
      idFilter: (id, call) => this.idFilter(id, call, 'write'),
      castId: (id) => this.castId(id),
      tagged: (raw) => this.tagged(raw),
      findOne: (id, call) => this.findWritable(id, call),
      writesFewer: (call) => rules.writesFewer(call),
    });
    this.fileWrites = new FileWrites<PlainDocument<T>, CoreWrite>({
      model,
      name: definition.name,
      files: definition.files ?? [],
      store: this.files,
      maxTimeMS: () => this.maxTimeMS,
      idFilter: (id, write) => this.idFilter(id, write.call, 'write'),
      update: (id, update, options, write) => this.findAndUpdate(id, update, options, write),
      updateInTurn: (id, update, options, write) => this.updateNow(id, update, options, write),
      inTurn: (id, work) => this.serialized(id, work, true),
      unwritten: (id, precondition, conditional, write) => this.conditions.unwritten(id, write.call, precondition, conditional),
    });
  }

  get maxTimeMS(): number {
    return this.definition.search.maxTimeMS;
  }

  /** The document whose `id` field equals `id`, among those the call may read; `null` when none does. */
  async findOne(id: string, call: CallContext): Promise<PlainDocument<T> | null> {
    const doc = await this.reading(this.model.findOne(this.idFilter(id, call)), call)
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec();
    return doc && this.tagged(doc);
  }

  /** See `ModelRepository.findByObjectId()`. */
  async findByObjectId(objectId: Types.ObjectId | string, call: CallContext): Promise<PlainDocument<T> | null> {
    const doc = await this.reading(this.model.findOne(this.scoped({ _id: objectId }, call)), call)
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec();
    return doc && this.tagged(doc);
  }

  /** See `ModelRepository.findByObjectIds()`: one query per `OBJECT_ID_CHUNK` identifiers. */
  async findByObjectIds(objectIds: readonly unknown[], call: CallContext): Promise<Array<PlainDocument<T>>> {
    const chunks: unknown[][] = [];
    for (let start = 0; start < objectIds.length; start += OBJECT_ID_CHUNK) chunks.push(objectIds.slice(start, start + OBJECT_ID_CHUNK));
    const read = (chunk: unknown[]) =>
      this.reading(this.model.find(this.scoped({ _id: { $in: chunk } }, call)), call)
        .maxTimeMS(this.maxTimeMS)
        .lean()
        .exec();
    const found = await Promise.all(chunks.map(read));
    return found.flat().map((doc) => this.tagged(doc as object));
  }

  /** See `ModelRepository.findReferencing()`. */
  async findReferencing(
    field: string,
    objectIds: readonly unknown[],
    sort: Record<string, 1 | -1> | undefined,
    limit: number,
    call: CallContext,
  ): Promise<Array<PlainDocument<T>>> {
    const order = withIdLast(sort);
    const query = this.reading(this.model.find(this.scoped({ [field]: { $in: objectIds } }, call)), call);
    const docs = await query.sort(order).limit(limit).maxTimeMS(this.maxTimeMS).lean().exec();
    return docs.map((doc) => this.tagged(doc as object));
  }

  /** The raw document `id` names (hidden fields included), among those the call may write; `null` when none. */
  async findRaw(id: string, call: CallContext): Promise<Record<string, unknown> | null> {
    return (await this.model
      .findOne(this.idFilter(id, call, 'write'))
      .select(this.revealHidden)
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec()) as Record<string, unknown> | null;
  }

  /**
   * The document `id` names, as a write would find it: `null` when it is not among those the call
   * may read; a 403 `MR_OUT_OF_SCOPE` when it is, but not among those it may write.
   */
  private async findWritable(id: string, call: CallContext): Promise<PlainDocument<T> | null> {
    if (!this.rules.writesFewer(call)) return this.findOne(id, call);
    const raw = await this.model
      .findOne(this.idFilter(id, call, 'write'))
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec();
    if (raw) return this.tagged(raw);
    if (await this.findOne(id, call))
      throw new ModelRoutesException('MR_OUT_OF_SCOPE', `${this.definition.name} '${id}' may be read, not written, by this request`);
    return null;
  }

  /** The `_id` of the document a path identifier names, `null` when none exists (always a query). */
  async existingObjectId(id: string, call: CallContext): Promise<Types.ObjectId | null> {
    const doc = await this.reading(this.model.findOne(this.idFilter(id, call)), call)
      .select('_id')
      .maxTimeMS(this.maxTimeMS)
      .lean()
      .exec();
    return (doc?._id as Types.ObjectId | undefined) ?? null;
  }

  /** Saves a new document of `values` (checked data without `null`s): references resolved and checked, schema validators run. */
  async create(values: Record<string, unknown>, { call, record }: CoreWrite): Promise<PlainDocument<T>> {
    const doc = await this.referencing(nestedAccess(values), async () => {
      const resolving = this.resolveReferences(values, call);
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
    record?.note(created);
    return this.tagged(created);
  }

  /**
   * The update of the document `id` names, where `condition` (if any) and `precondition` hold too,
   * with its version incremented, in the document's turn of writes. Where it matches nothing: `null`
   * if no document has this id, a 412 if `precondition` fails, else (the `condition` failed: nothing
   * to change) the document.
   */
  findAndUpdate(id: string, update: Record<string, unknown>, options: UpdateOptions, write: CoreWrite): Promise<PlainDocument<T> | null>;
  /** With `retry`: `undefined` where the `condition` failed and the `precondition` (if any) holds, for the caller to read again and retry. */
  findAndUpdate(
    id: string,
    update: Record<string, unknown>,
    options: UpdateOptions & { retry: true },
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined>;
  findAndUpdate(
    id: string,
    update: Record<string, unknown>,
    options: UpdateOptions & { retry?: true },
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined> {
    return this.serialized(id, () => this.updateNow(id, update, options, write));
  }

  /** `findAndUpdate()` without waiting for the other writes to the document: for a caller that runs in its turn already. */
  updateNow(id: string, update: Record<string, unknown>, options: UpdateOptions, write: CoreWrite): Promise<PlainDocument<T> | null>;
  updateNow(
    id: string,
    update: Record<string, unknown>,
    options: UpdateOptions & { retry?: true },
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined>;
  async updateNow(
    id: string,
    update: Record<string, unknown>,
    { merge, condition, where, precondition, retry, subType }: UpdateOptions & { retry?: true },
    { call, record }: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined> {
    const { versionKey } = this.definition.fields;
    const versioned = versionKey ? Object.assign({}, update, { $inc: Object.assign({}, update.$inc, { [versionKey]: 1 }) }) : update;
    const target = await this.conditions.writeFilter(id, call, precondition, where ? allOf(condition, where) : condition);
    try {
      // Selecting the hidden fields keeps Mongoose from sending a projection with findAndModify:
      // FerretDB v1 does not implement one. They are dropped by toPlain() before anything returns.
      const doc =
        target &&
        (await ((subType && (this.model.discriminators?.[subType] as Model<T> | undefined)) || this.model)
          .findOneAndUpdate(target.filter, versioned, { returnDocument: 'after', runValidators: true, context: 'query' })
          .select(this.revealHidden)
          .maxTimeMS(this.maxTimeMS)
          .lean()
          .exec());
      if (doc) {
        record?.note(doc as object);
        return this.tagged(doc as object);
      }
      return retry ? this.conditions.unmatched(id, call, precondition) : this.conditions.unwritten(id, call, precondition, condition !== undefined);
    } catch (error) {
      throw (await writeError(error, this.model, merge?.$set ?? {})) ?? error;
    }
  }

  /**
   * Deletes the document `id` names (where `where` still holds), after the `onDelete` rules of the
   * fields that reference it, then its files; answers it as it was, or `null`.
   */
  async delete(
    id: string,
    precondition: Precondition | undefined,
    where: Record<string, unknown> | undefined,
    { call, record }: CoreWrite,
  ): Promise<PlainDocument<T> | null> {
    // The references' locks before the document's turn, as writes that reference it take them: never the other way round.
    const doc = await referenceLocksOfProcess.exclusive(await this.deleteLocks(id, call), () =>
      this.serialized(id, async () => {
        const target = await this.conditions.writeFilter(id, call, precondition, where);
        const released = target && (await releaseReferences(this.model, target.filter, id, this.maxTimeMS));
        return released && (await this.model.findOneAndDelete(target.filter).select(this.revealHidden).maxTimeMS(this.maxTimeMS).lean().exec());
      }),
    );
    if (!doc) return this.conditions.unwritten(id, call, precondition, false);
    record?.note(doc as object, true);
    await this.fileWrites.release(doc as Record<string, unknown>);
    return this.toPlain(doc as object);
  }

  /**
   * A soft delete: marks the document (`field`, the time) and answers it, files kept. `restrict`
   * holds, as on a delete (a 409 `MR_REFERENCED`); `nullify` and `pull` wait for the purge, since a
   * restore could not undo them.
   */
  async markDeleted(
    id: string,
    field: string,
    precondition: Precondition | undefined,
    where: Record<string, unknown> | undefined,
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null> {
    return referenceLocksOfProcess.exclusive(await this.deleteLocks(id, write.call), async () => {
      const released = await releaseReferences(this.model, allOf(this.idFilter(id, write.call, 'write'), where), id, this.maxTimeMS, { restrictOnly: true });
      if (!released) return this.conditions.unwritten(id, write.call, precondition, false);
      return this.findAndUpdate(id, { $set: { [field]: new Date() } }, { precondition, where }, write);
    });
  }

  /** The conditions of a write: those given, else the call's for this document (see `takePrecondition`). */
  preconditionOf(id: string, options: WriteOptions | undefined, call: CallContext): Precondition | undefined {
    return preconditionOf(options, () => takePrecondition(call, this.definition.name, id));
  }

  /** `toPlain`, with the document's entity tag attached (see `etagOf`): its version, or a hash of its content without a version key. */
  tagged(doc: object): PlainDocument<T> {
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

  /** The query, reading where the call's route says (its `readPreference` option), if it says. */
  reading<Q extends { read(mode: string): Q }>(query: Q, call: CallContext): Q {
    return call.readPreference ? query.read(call.readPreference) : query;
  }

  /** Casts a path identifier to the type of the `id` field; a 400 `MR_INVALID_ID` when it cannot be. */
  castId(id: string): unknown {
    return castPathId(id, this.definition);
  }

  /** The filter of the document `id` names, among those the call may read (or write). */
  idFilter(id: string, call: CallContext, access: 'read' | 'write' = 'read'): Record<string, unknown> {
    return this.scoped({ [this.definition.idField]: this.castId(id) }, call, access);
  }

  /** `filter`, among the documents the call may read (or, `'write'`, write): ANDed with the rules' conditions (row scope, soft delete). */
  scoped(filter: Record<string, unknown> | undefined, call: CallContext, access: 'read' | 'write' = 'read'): Record<string, unknown> {
    const scope = this.rules.filter(call, access);
    return scope ? allOf(scope, filter) : (filter ?? {});
  }

  /** Resolves and checks the references `data` names (nested data; `flat`: dotted paths), if any. */
  resolveReferences(data: Record<string, unknown>, call: CallContext, flat = false): Promise<void> | undefined {
    return resolveReferences(this.model.db, this.references, flat ? flatAccess(data) : nestedAccess(data), this.maxTimeMS, call);
  }

  /**
   * Runs a write holding the locks of the documents it references through fields with an
   * `onDelete` rule (see `referenceLocks`), so that a delete of one of them in this process runs
   * wholly before or wholly after it; `locked` says whether it holds any. On every engine: the
   * window between a reference's check and its write is the library's, not the engine's.
   */
  referencing<R>(data: Pick<FieldAccess, 'get'>, write: (locked: boolean) => Promise<R>): Promise<R> {
    const keys = referenceLocks(this.model, data);
    return keys.length ? referenceLocksOfProcess.shared(keys, () => write(true)) : write(false);
  }

  /** The locks a delete of the document `id` names takes: none unless an `onDelete` rule targets this model. */
  private async deleteLocks(id: string, call: CallContext): Promise<string[]> {
    if (!hasDeleteRules(this.model)) return [];
    if (this.definition.idField === '_id') return targetLocks(this.model, [this.castId(id)]);
    // Writes may name it by its slug or by its `_id`: both locks.
    return targetLocks(this.model, [id, await this.existingObjectId(id, call)]);
  }

  /**
   * Runs a write to the document `id` names after the writes to it in progress, where the engine
   * needs that, or `always` (a read and a write that depends on it, which no engine applies atomically).
   */
  serialized<R>(id: string, write: () => Promise<R>, always = false): Promise<R> {
    const queued = () => serializer.run(`${this.model.db.name}/${this.model.collection.collectionName}/${id}`, write);
    if (always) return queued();
    // Known after the connection's first write: no promise to wait on in the path of every write.
    const engine = knownServerEngine(this.model.db);
    if (engine) return engine === 'mongodb' ? write() : queued();
    return hasAtomicDocumentWrites(this.model.db).then((atomic) => (atomic ? write() : queued()));
  }
}

/** Whether a schema has a Map at any depth (in nested objects and sub-documents too). */
function hasMaps(schema: mongoose.Schema): boolean {
  let found = false;
  schema.eachPath((_path, type) => {
    found ||= type.instance === 'Map';
  });
  return found || schema.childSchemas.some((child) => hasMaps(child.schema));
}
