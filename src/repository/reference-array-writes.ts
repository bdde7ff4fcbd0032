import type { Types } from 'mongoose';
import type { Precondition } from '../concurrency/conditional-write.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { readScopeOf } from '../scopes/row-scope.js';
import { allOf } from '../utils/all-of.util.js';
import type { CoreWrite, DocumentStore, PlainDocument } from './document-store.js';

/**
 * The writes of one identifier in an array of references (`POST` and `DELETE /company/:id/tags/:tag_id`),
 * under `ModelRepository`'s `addReference` and `removeReference` (their rules and hooks are the repository's).
 */
export class ReferenceArrayWrites<T> {
  constructor(private readonly store: DocumentStore<T>) {}

  /** See `ModelRepository.addReference()`. */
  add(id: string, field: string, objectId: Types.ObjectId, precondition: Precondition | undefined, write: CoreWrite): Promise<PlainDocument<T> | null> {
    const { store } = this;
    const access = { get: (path: string) => (path === field ? objectId : undefined) };
    return store.referencing(access, async (locked) => {
      // In the turn of the referenced document's delete: it exists now, or the add is a 404.
      const reference = store.definition.references.find((candidate) => candidate.field === field);
      const target = reference && store.model.db.model(reference.targetName);
      if (
        locked &&
        target &&
        !(await target
          .exists(allOf(readScopeOf(target, write.call), { _id: objectId }))
          .maxTimeMS(store.maxTimeMS)
          .exec())
      ) {
        throw ModelRoutesException.notFound(reference.targetName, String(objectId));
      }
      return store.findAndUpdate(id, { $addToSet: { [field]: objectId } }, { condition: { [field]: { $ne: objectId } }, precondition }, write);
    });
  }

  /** See `ModelRepository.removeReference()`. */
  remove(id: string, field: string, objectId: Types.ObjectId, precondition: Precondition | undefined, write: CoreWrite): Promise<PlainDocument<T> | null> {
    return this.store.findAndUpdate(id, { $pull: { [field]: objectId } }, { condition: { [field]: objectId }, precondition }, write);
  }
}
