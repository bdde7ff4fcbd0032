import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityTagCondition } from './entity-tag.js';

/** The `If-Match` of a generated write route's request, for the document its path names. */
export interface RequestPrecondition {
  /** The resource whose document the route writes (`Company`). */
  resource: string;
  /** The identifier in the path (`:company_id`), as sent. */
  id: string;
  condition: EntityTagCondition;
  /** Set by the first write it applied to: later writes of the same request are not conditional. */
  used: boolean;
}

const storage = new AsyncLocalStorage<RequestPrecondition>();

/** Runs `work` with `precondition` in force for the writes it makes through a repository. */
export function runWithPrecondition<R>(precondition: RequestPrecondition, work: () => R): R {
  return storage.run(precondition, work);
}

/**
 * The `If-Match` condition of the request in progress, if it names this document of this resource
 * and no write has used it yet; the write that takes it applies it. So a generated route's write,
 * an override's `super` call, or an override's own repository write to the route's document are
 * conditional, while writes to other documents made by the same request are not.
 */
export function takePrecondition(resource: string, id: string): EntityTagCondition | undefined {
  const precondition = storage.getStore();
  if (!precondition || precondition.used || precondition.resource !== resource || precondition.id !== id) return undefined;
  precondition.used = true;
  return precondition.condition;
}
