import type { Model, Types } from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import { subTypeChanges } from '../definitions/sub-types.util.js';
import type { SubTypeDefinition } from '../definitions/resource-definition.interface.js';
import type { Precondition, WriteOptions } from '../concurrency/conditional-write.js';
import { timestampFields } from '../definitions/field-rules.factory.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { FileRef } from '../files/file-ref.js';
import type { WriteOperation } from '../hooks/write-hooks.js';
import type { BulkOptions, BulkReport } from '../interfaces/bulk.interface.js';
import { assertNoCycles } from '../references/reference-cycles.js';
import type { RulePipeline } from '../rules/rule-pipeline.js';
import type { StagedWrite, StoredWrite } from '../rules/rule-stage.js';
import { inTrash } from '../scopes/soft-delete.js';
import { copyData, flatAccess, valueAtPath } from '../utils/object-path.util.js';
import { allOf } from '../utils/all-of.util.js';
import type { ElementRules } from '../write/element-rules.util.js';
import { incompleteObjects, requiredFieldsOf } from './required-objects.js';
import { toMergeUpdate, withoutNulls, type MergeUpdate } from '../write/update-document.util.js';
import { validationFailed } from '../dto/dto-validation.js';
import { runBulk, type BulkPlan } from './bulk-writes.js';
import type { DocumentSearch } from './document-search.js';
import type { CoreWrite, DocumentStore, PlainDocument, UpdateOptions } from './document-store.js';
import { ElementWrites } from './element-writes.js';
import { ReferenceArrayWrites } from './reference-array-writes.js';

/**
 * Every write of one resource, under `ModelRepository`'s write methods: each runs through the
 * resource's rules (`RulePipeline.write`) around the core's write (`DocumentStore`), for the call
 * it is handed. The write of one field (a reference, an element, a file) is an update to the rules,
 * with that field as what changed.
 */
export class DocumentWrites<T> {
  private readonly elements: ElementWrites<T>;
  private readonly referenceArrays: ReferenceArrayWrites<T>;

  constructor(
    private readonly store: DocumentStore<T>,
    private readonly searches: DocumentSearch<T>,
    private readonly rules: RulePipeline<PlainDocument<T>>,
  ) {
    this.elements = new ElementWrites(store);
    this.referenceArrays = new ReferenceArrayWrites(store);
  }

  create(data: Record<string, unknown>, options: Pick<WriteOptions, 'hooks'> | undefined, call: CallContext): Promise<PlainDocument<T>> {
    const run = (given: Record<string, unknown> | undefined, write: CoreWrite) => this.store.create(withoutNulls(given!, this.store.definition.fields), write);
    return this.write({ phase: 'create', operation: 'create', data }, options, call, run, (doc) => ({ doc }));
  }

  /** `update()`, of a document that still matches `where` (else nothing is written and `null` answered): a bulk change's write of one of its matches. */
  update(
    id: string,
    data: Record<string, unknown>,
    options: WriteOptions | undefined,
    call: CallContext,
    where?: Record<string, unknown>,
  ): Promise<PlainDocument<T> | null> {
    const stored = (doc: PlainDocument<T> | null, given?: Record<string, unknown>) => {
      const changed = changedPaths(toMergeUpdate(given!, this.store.definition.fields));
      return doc && changed.length ? { doc, changed } : undefined;
    };
    return this.write(
      { phase: 'update', operation: 'update', id, data },
      options,
      call,
      (given, write) => this.updateNow(id, given!, options, where, write),
      stored,
    );
  }

  private async updateNow(
    id: string,
    data: Record<string, unknown>,
    options: WriteOptions | undefined,
    where: Record<string, unknown> | undefined,
    write: CoreWrite,
  ) {
    const { store } = this;
    const { definition, model } = store;
    const subType = definition.discriminator && (await this.subTypeOf(id, write.call));
    // A write of a sub-type's document: checked against its fields, and cast by its own model (a Book's `isbn`).
    if (subType) data = subTypeChanges(data, definition.discriminator!.key, subType === 'base' ? { schema: model.schema } : subType);
    const update = toMergeUpdate(data, definition.fields);
    const precondition = store.preconditionOf(id, options, write.call);
    if (!update.$set && !update.$unset) return store.conditions.unwritten(id, write.call, precondition, true);
    return store.referencing(flatAccess(update.$set ?? {}), async () => {
      const resolving = update.$set && store.resolveReferences(update.$set, write.call, true);
      if (resolving) await resolving;
      if (update.$set && definition.references.some((reference) => reference.acyclic && reference.field in update.$set!)) {
        const self = await model.findOne(store.idFilter(id, write.call)).select('_id').maxTimeMS(store.maxTimeMS).lean().exec();
        // No such document: the write answers its 404.
        if (self)
          await assertNoCycles(model as unknown as Model<unknown>, definition.references, (self as { _id: Types.ObjectId })._id, update.$set, store.maxTimeMS);
      }
      const updateOptions: UpdateOptions = { merge: update, precondition, where, subType: subType === 'base' ? undefined : subType?.name };
      const incomplete = incompleteObjects(data, definition.fields.objects, requiredFieldsOf(subType && subType !== 'base' ? subType.schema : model.schema));
      if (incomplete.size > 0) return this.updateWithObjects(id, update, updateOptions, incomplete, write);
      return store.findAndUpdate(id, update as Record<string, unknown>, updateOptions, write);
    });
  }

  /**
   * The update of a body that sends nested objects without every field a new one requires
   * (`incomplete`, see `incompleteObjects`): written where the document holds each of them already,
   * else refused as a create of them would be, a 400 `MR_VALIDATION_FAILED` naming the fields the
   * absent ones miss. One condition per object (`{ address: { $ne: null } }`) makes the check and
   * the write one operation; the stored objects are read only when it fails.
   */
  private async updateWithObjects(
    id: string,
    update: MergeUpdate,
    options: UpdateOptions,
    incomplete: ReadonlyMap<string, readonly string[]>,
    write: CoreWrite,
    again = true,
  ): Promise<PlainDocument<T> | null> {
    const { store } = this;
    const condition = allOf(...[...incomplete.keys()].map((path) => ({ [path]: { $ne: null } })));
    const written = await store.findAndUpdate(id, update as Record<string, unknown>, Object.assign({}, options, { condition, retry: true as const }), write);
    if (written !== undefined) return written;
    // The document is there and its precondition holds: which objects are not?
    const current = await store.model
      .findOne(allOf(store.idFilter(id, write.call, 'write'), options.where))
      .select([...incomplete.keys()].join(' '))
      .maxTimeMS(store.maxTimeMS)
      .lean()
      .exec();
    if (!current) return null;
    const absent = [...incomplete].filter(([path]) => valueAtPath(current as Record<string, unknown>, path) == null);
    // Each of them was written in between (another process's write): once more.
    if (absent.length === 0 && again) return this.updateWithObjects(id, update, options, incomplete, write, false);
    throw validationFailed(absent.flatMap(([path, names]) => names.map((name) => ({ path: `${path}.${name}`, message: `${name} is required` }))));
  }

  /**
   * The sub-type of the stored document `id` names: `'base'` for a document of none (written without
   * the key), `undefined` when there is no such document (the update answers its 404).
   */
  private async subTypeOf(id: string, call: CallContext): Promise<SubTypeDefinition | 'base' | undefined> {
    const { store } = this;
    const { key, types } = store.definition.discriminator!;
    const doc = await store.model.findOne(store.idFilter(id, call)).select(key).maxTimeMS(store.maxTimeMS).lean().exec();
    if (!doc) return undefined;
    return types.find((type) => type.value === (doc as Record<string, unknown>)[key]) ?? 'base';
  }

  /** A delete (with soft delete: the mark), of a document that still matches `where`. */
  delete(id: string, options: WriteOptions | undefined, call: CallContext, where?: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    const { softDelete } = this.rules;
    const run = (_data: unknown, write: CoreWrite) => {
      const precondition = this.store.preconditionOf(id, options, write.call);
      return softDelete ? this.store.markDeleted(id, softDelete.field, precondition, where, write) : this.store.delete(id, precondition, where, write);
    };
    return this.write({ phase: 'delete', operation: 'delete', id }, options, call, run, (doc) => doc && { doc });
  }

  async updateMany(filter: Record<string, unknown>, data: Record<string, unknown>, options: BulkOptions, call: CallContext): Promise<BulkReport> {
    const update = toMergeUpdate(data, this.store.definition.fields);
    if (!update.$set && !update.$unset) throw ModelRoutesException.invalidBody('body', 'A bulk update needs at least one field to change');
    this.rules.scope?.scopes.checkChanges(update.$set, update.$unset, call);
    // The references it sets are the same for every match: one that names no document refuses the change whole, before any write.
    const resolving = update.$set && this.store.resolveReferences(update.$set, call, true);
    if (resolving) await resolving;
    return this.bulk(filter, options, call, 'updated', async (id, where) => (await this.update(id, copyData(data), undefined, call, where)) !== null);
  }

  deleteMany(filter: Record<string, unknown>, options: BulkOptions, call: CallContext): Promise<BulkReport> {
    return this.bulk(filter, options, call, 'deleted', async (id, where) => (await this.delete(id, undefined, call, where)) !== null);
  }

  private async bulk(
    filter: Record<string, unknown>,
    options: BulkOptions,
    call: CallContext,
    outcome: BulkPlan['outcome'],
    write: BulkPlan['write'],
  ): Promise<BulkReport> {
    await this.searches.checkFilter(filter);
    const { model, definition, maxTimeMS } = this.store;
    const { name, idField, search } = definition;
    const max = options.maxDocuments ?? search.bulkMaxDocuments;
    const scoped = this.store.scoped(filter, call, 'write');
    return runBulk({ model, resource: name, idField, filter: scoped, max, maxTimeMS, dryRun: options.dryRun === true, outcome, write });
  }

  restore(id: string, field: string, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    const run = (precondition: Precondition | undefined, write: CoreWrite) =>
      this.store.findAndUpdate(id, { $set: { [field]: null } }, { precondition }, this.inTrash(write));
    return this.fieldWrite('restore', id, field, options, call, run, same);
  }

  purge(id: string, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    const run = (_data: unknown, write: CoreWrite) => this.store.delete(id, this.store.preconditionOf(id, options, write.call), undefined, this.inTrash(write));
    return this.write({ phase: 'delete', operation: 'purge', id }, options, call, run, (doc) => doc && { doc });
  }

  /** The core write of `write` on the resource's trash: the documents soft delete marked, and only them. */
  private inTrash(write: CoreWrite): CoreWrite {
    return Object.assign({}, write, { call: inTrash(write.call, this.store.definition.name) });
  }

  async revert(id: string, version: number, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    const { store } = this;
    const { definition } = store;
    const current = await store.findRaw(id, call);
    if (!current) return store.conditions.unwritten(id, call, store.preconditionOf(id, options, call), false);
    const entry = await this.rules.history!.versions.entry(current._id as Types.ObjectId, version);
    if (!entry)
      throw new ModelRoutesException('MR_NOT_FOUND', `${definition.name} '${id}' has no version ${version} in its history`, [
        { path: 'version', message: 'no such version' },
      ]);
    const own = new Set([
      '_id',
      definition.fields.versionKey,
      ...timestampFields(definition.schema),
      ...(this.rules.softDelete ? [this.rules.softDelete.field] : []),
    ]);
    const $set = Object.fromEntries(Object.entries(entry.document).filter(([field]) => !own.has(field)));
    const $unset = Object.fromEntries(
      Object.keys(current)
        .filter((field) => !own.has(field) && !(field in $set))
        .map((field) => [field, 1]),
    );
    // Compared as BSON would be: an ObjectId and a Date by value.
    const changed = [...Object.keys($set).filter((field) => JSON.stringify(current[field]) !== JSON.stringify($set[field])), ...Object.keys($unset)];
    this.rules.scope?.scopes.checkChanges($set, $unset, call);
    const update = { $set, ...(Object.keys($unset).length && { $unset }) };
    const run = (_data: unknown, write: CoreWrite) => store.findAndUpdate(id, update, { precondition: store.preconditionOf(id, options, call) }, write);
    return this.write({ phase: 'update', operation: 'revert', id }, options, call, run, (doc) => doc && { doc, changed });
  }

  addReference(id: string, field: string, objectId: Types.ObjectId, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    return this.fieldWrite(
      'addReference',
      id,
      field,
      options,
      call,
      (precondition, write) => this.referenceArrays.add(id, field, objectId, precondition, write),
      same,
    );
  }

  removeReference(id: string, field: string, objectId: Types.ObjectId, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    return this.fieldWrite(
      'removeReference',
      id,
      field,
      options,
      call,
      (precondition, write) => this.referenceArrays.remove(id, field, objectId, precondition, write),
      same,
    );
  }

  addElement(
    id: string,
    field: string,
    element: Record<string, unknown>,
    bounds: { rules: ElementRules; maxElements: number },
    options: WriteOptions | undefined,
    call: CallContext,
  ) {
    const run = (precondition: Precondition | undefined, write: CoreWrite) => this.elements.add(id, field, element, bounds, precondition, write);
    return this.fieldWrite('addElement', id, field, options, call, run, (added: { doc: PlainDocument<T> } | null) => added?.doc);
  }

  updateElement(
    id: string,
    field: string,
    elementId: unknown,
    data: Record<string, unknown>,
    rules: ElementRules,
    options: WriteOptions | undefined,
    call: CallContext,
  ) {
    const run = (precondition: Precondition | undefined, write: CoreWrite) => this.elements.update(id, field, elementId, data, rules, precondition, write);
    return this.fieldWrite('updateElement', id, field, options, call, run, same);
  }

  removeElement(id: string, field: string, elementId: unknown, options: WriteOptions | undefined, call: CallContext) {
    return this.fieldWrite(
      'removeElement',
      id,
      field,
      options,
      call,
      (precondition, write) => this.elements.remove(id, field, elementId, precondition, write),
      same,
    );
  }

  findElement(id: string, field: string, elementId: unknown, call: CallContext): Promise<Record<string, unknown> | null | undefined> {
    return this.elements.find(id, field, elementId, call);
  }

  replaceFile(
    id: string,
    field: string,
    file: FileRef,
    replaces: Types.ObjectId | undefined,
    options: WriteOptions | undefined,
    call: CallContext,
  ): Promise<PlainDocument<T> | null> {
    return this.fieldWrite(
      'setFile',
      id,
      field,
      options,
      call,
      (precondition, write) => this.store.fileWrites.replace(id, field, file, replaces, precondition, write),
      same,
    );
  }

  swapFile(
    id: string,
    field: string,
    file: FileRef,
    options: WriteOptions | undefined,
    call: CallContext,
  ): Promise<{ document: PlainDocument<T>; replaced?: FileRef } | null> {
    const run = (precondition: Precondition | undefined, write: CoreWrite) => this.store.fileWrites.swap(id, field, file, precondition, write);
    return this.fieldWrite('setFile', id, field, options, call, run, (swapped) => swapped?.document);
  }

  addFile(id: string, field: string, file: FileRef, options: WriteOptions | undefined, call: CallContext): Promise<PlainDocument<T> | null> {
    return this.fieldWrite('addFile', id, field, options, call, (precondition, write) => this.store.fileWrites.add(id, field, file, precondition, write), same);
  }

  removeFile(
    id: string,
    field: string,
    file: FileRef,
    gallery: boolean,
    options: WriteOptions | undefined,
    call: CallContext,
  ): Promise<PlainDocument<T> | null> {
    return this.fieldWrite(
      'removeFile',
      id,
      field,
      options,
      call,
      (precondition, write) => this.store.fileWrites.remove(id, field, file, gallery, precondition, write),
      same,
    );
  }

  /** Runs `run` as one write of `call` through the rules (see `RulePipeline.write`); `{ hooks: false }` skips the app's hooks only. */
  private write<R>(
    what: Pick<StagedWrite, 'phase' | 'operation' | 'id' | 'field' | 'data'>,
    options: Pick<WriteOptions, 'hooks'> | undefined,
    call: CallContext,
    run: (data: Record<string, unknown> | undefined, write: CoreWrite) => Promise<R>,
    stored: (result: R, data: Record<string, unknown> | undefined) => StoredWrite<PlainDocument<T>> | null | undefined,
  ): Promise<R> {
    // `what` holds neither `call` nor `hooks`: its properties after them (see eslint.config.js on spreads).
    const staged: StagedWrite = { call, hooks: options?.hooks !== false, ...what };
    return this.rules.write(staged, (data, record) => run(data, record ? { call, record } : { call }), stored);
  }

  /** A write of one field of the document `id` names (an update): its rules, with the field as what changed, and its conditions. */
  private fieldWrite<R>(
    operation: WriteOperation,
    id: string,
    field: string,
    options: WriteOptions | undefined,
    call: CallContext,
    run: (precondition: Precondition | undefined, write: CoreWrite) => Promise<R>,
    docOf: (result: R) => PlainDocument<T> | null | undefined,
  ): Promise<R> {
    const stored = (result: R) => {
      const doc = docOf(result);
      return doc ? { doc, changed: [field] } : undefined;
    };
    return this.write(
      { phase: 'update', operation, id, field },
      options,
      call,
      (_data, write) => run(this.store.preconditionOf(id, options, write.call), write),
      stored,
    );
  }
}

/** The document a write answers, as it answers it. */
function same<D>(doc: D): D {
  return doc;
}

/** The dotted paths an update sets or removes. */
function changedPaths(update: MergeUpdate): string[] {
  return [...Object.keys(update.$set ?? {}), ...Object.keys(update.$unset ?? {})];
}
