import type { Model, Types } from 'mongoose';
import type { Precondition } from '../concurrency/conditional-write.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { galleryFull } from './file-errors.js';
import type { FileFieldDefinition } from './file-options.js';
import type { FileRef } from './file-ref.js';
import type { FileStore } from './file-store.js';

/**
 * How many times `swapFile()` writes a file field that another writer changed in between. Within
 * one process the first attempt lands (see `swapFile()`): only writers of other processes, each
 * landing between a read and a write, exhaust them.
 */
const FILE_SWAP_ATTEMPTS = 5;

/** An update of one document, where `condition` (if any) and `precondition` hold too. */
export interface FileUpdate {
  condition?: Record<string, unknown>;
  precondition?: Precondition;
}

/**
 * What the file writes need of the repository of a model with file fields: its documents, and its
 * one way to write them. `W` is the write in progress (the repository's call and what its rules
 * note), handed back to the target as it came: opaque here.
 */
export interface FileWriteTarget<D extends object, W> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
  model: Model<any>;
  /** The model's name, for messages. */
  name: string;
  files: readonly FileFieldDefinition[];
  /** Where its files are; absent for a model without file fields. */
  store?: FileStore;
  maxTimeMS(): number;
  /** The filter of the document `id` names, among those the write may reach. */
  idFilter(id: string, write: W): Record<string, unknown>;
  /** The repository's conditional update, in the document's turn of writes (`findAndUpdate`). */
  update(id: string, update: Record<string, unknown>, options: FileUpdate, write: W): Promise<D | null>;
  /** The same, for a caller that runs in the document's turn already (`updateNow`). */
  updateInTurn(id: string, update: Record<string, unknown>, options: FileUpdate, write: W): Promise<D | null>;
  /** Runs `work` in the document's turn of writes, on every engine. */
  inTurn<R>(id: string, work: () => Promise<R>): Promise<R>;
  /** Why a write matched nothing (see `ConditionalWrites.unwritten`). */
  unwritten(id: string, precondition: Precondition | undefined, conditional: boolean, write: W): Promise<D | null>;
}

/** The writes of a model's file fields and galleries, behind `ModelRepository`'s file methods. */
export class FileWrites<D extends object, W> {
  constructor(private readonly target: FileWriteTarget<D, W>) {}

  /** See `ModelRepository.removeOrphanFiles()`. */
  async removeOrphans(olderThanMs: number): Promise<number> {
    const { target } = this;
    if (!target.store) return 0;
    return target.store.removeOrphans(new Date(Date.now() - olderThanMs), async (owner, id) => {
      const held = await target.model
        .exists({ _id: owner.document, [`${owner.field}._id`]: id })
        .maxTimeMS(target.maxTimeMS())
        .exec();
      return held !== null;
    });
  }

  /** See `ModelRepository.replaceFile()`. */
  replace(id: string, field: string, file: FileRef, replaces: Types.ObjectId | undefined, precondition: Precondition | undefined, write: W): Promise<D | null> {
    const condition = replaces ? { [`${field}._id`]: replaces } : { [field]: null };
    return this.target.update(id, { $set: { [field]: file } }, { condition, precondition }, write);
  }

  /** See `ModelRepository.swapFile()`. */
  async swap(id: string, field: string, file: FileRef, precondition: Precondition | undefined, write: W): Promise<{ document: D; replaced?: FileRef } | null> {
    const { target } = this;
    for (let attempt = 0; attempt < FILE_SWAP_ATTEMPTS; attempt++) {
      const outcome = await target.inTurn(id, async (): Promise<{ document: D; landed: boolean; replaced?: FileRef } | null> => {
        const current = await target.model.findOne(target.idFilter(id, write)).select(`_id ${field}`).maxTimeMS(target.maxTimeMS()).lean().exec();
        if (!current) return target.unwritten(id, precondition, false, write).then((document) => document && { document, landed: false });
        const replaced = ((current as Record<string, unknown>)[field] as FileRef | null | undefined) ?? undefined;
        const condition = replaced ? { [`${field}._id`]: replaced._id } : { [field]: null };
        const document = await target.updateInTurn(id, { $set: { [field]: file } }, { condition, precondition }, write);
        const landed = String(((document as Record<string, unknown> | null)?.[field] as FileRef | undefined)?._id) === String(file._id);
        return document && { document, landed, replaced };
      });
      if (!outcome) return null;
      if (outcome.landed) return { document: outcome.document, ...(outcome.replaced && { replaced: outcome.replaced }) };
    }
    throw new ModelRoutesException(
      'MR_WRITE_CONFLICT',
      `${target.name}.${field} of '${id}' was replaced by other writers ${FILE_SWAP_ATTEMPTS} times while this upload was being stored; nothing was ` +
        `written: send it again`,
      undefined,
      { 'Retry-After': '1' },
    );
  }

  /** See `ModelRepository.addFile()`. */
  async add(id: string, field: string, file: FileRef, precondition: Precondition | undefined, write: W): Promise<D | null> {
    const { target } = this;
    const maxFiles = target.files.find((definition) => definition.field === field)?.maxFiles;
    if (maxFiles === undefined) return target.update(id, { $push: { [field]: file } }, { precondition }, write);
    // The element at `maxFiles - 1` exists exactly when the gallery is full.
    const doc = await target.update(id, { $push: { [field]: file } }, { condition: { [`${field}.${maxFiles - 1}`]: { $exists: false } }, precondition }, write);
    const added = ((doc as Record<string, unknown> | null)?.[field] as FileRef[] | undefined)?.some((ref) => String(ref._id) === String(file._id));
    if (doc && !added) throw galleryFull(`${target.name}.${field}`, maxFiles);
    return doc;
  }

  /** See `ModelRepository.removeFile()`. */
  remove(id: string, field: string, file: FileRef, gallery: boolean, precondition: Precondition | undefined, write: W): Promise<D | null> {
    if (gallery) return this.target.update(id, { $pull: { [field]: file } }, { precondition }, write);
    return this.target.update(id, { $unset: { [field]: 1 } }, { condition: { [`${field}._id`]: file._id }, precondition }, write);
  }

  /** Deletes the files a deleted document (raw, as the engine returned it) held. */
  async release(doc: Record<string, unknown>): Promise<void> {
    if (this.target.store) await this.target.store.release(fileIdsOf(doc, this.target.files));
  }
}

/** The GridFS ids of the files a raw document holds in its file fields. */
function fileIdsOf(doc: Record<string, unknown>, fields: readonly { field: string; gallery: boolean }[]): Types.ObjectId[] {
  return fields.flatMap(({ field }) => {
    const value = doc[field] as FileRef | FileRef[] | null | undefined;
    return (Array.isArray(value) ? value : value ? [value] : []).map((file) => file._id);
  });
}
