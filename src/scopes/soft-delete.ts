import type { CallContext } from '../call/call-context.js';

/** The view of `call` on the trash of `resource`: its reads and writes reach the documents soft delete marked, and only them. */
export function inTrash(call: CallContext, resource: string): CallContext {
  return Object.assign({}, call, { trash: resource });
}

/**
 * The condition of the documents of `resource` that a call's reads and writes reach, by the field
 * that marks a soft-deleted one: the living (`null`, or no such field: documents stored before soft
 * delete was turned on), or, in its trash (`inTrash`), the marked.
 */
export function lifeCondition(resource: string, field: string, call: CallContext): Record<string, unknown> {
  return call.trash === resource ? { [field]: { $ne: null } } : { [field]: null };
}
