import { AsyncLocalStorage } from 'node:async_hooks';

/** The resource whose trash the work in progress reads and writes (its restore, purge, trash search). */
const trash = new AsyncLocalStorage<string>();

/** Runs `work` on the trash of `resource`: its reads and writes reach the documents soft delete marked, and only them. */
export function inTrash<R>(resource: string, work: () => R): R {
  return trash.run(resource, work);
}

/**
 * The condition of the documents of `resource` that its reads and writes reach, by the field that
 * marks a soft-deleted one: the living (`null`, or no such field: documents stored before soft
 * delete was turned on), or, in its trash (`inTrash`), the marked.
 */
export function lifeCondition(resource: string, field: string): Record<string, unknown> {
  return trash.getStore() === resource ? { [field]: { $ne: null } } : { [field]: null };
}
