import { AsyncLocalStorage } from 'node:async_hooks';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { WritePrecondition } from './entity-tag.js';

/** The `If-Match` and `If-None-Match` of a generated write route's request, for the document its path names. */
export interface RequestPrecondition extends WritePrecondition {
  /** The resource whose document the route writes (`Company`). */
  resource: string;
  /** The identifier in the path (`:company_id`), as sent. */
  id: string;
  /** Set by the first write it applied to: later writes of the same request are not conditional. */
  used: boolean;
}

/**
 * What a generated route hands to the repository calls its handler makes, without a parameter of
 * the overridable methods (`findOne(id)`, `update(id, body)`) having to carry it: the request's
 * `If-Match` and `If-None-Match`, and the route's `readPreference`. Only set for the requests that have one of them.
 */
export interface RouteContext {
  precondition?: RequestPrecondition;
  readPreference?: ReadPreferenceMode;
}

const storage = new AsyncLocalStorage<RouteContext>();

/** Runs `work` with `context` in force for the repository calls it makes. */
export function runInRouteContext<R>(context: RouteContext, work: () => R): R {
  return storage.run(context, work);
}

/**
 * The conditions (`If-Match`, `If-None-Match`) of the request in progress, if it names this
 * document of this resource and no write has used them yet; the write that takes them applies them. So a generated route's write,
 * an override's `super` call, or an override's own repository write to the route's document are
 * conditional, while writes to other documents made by the same request are not.
 */
export function takePrecondition(resource: string, id: string): WritePrecondition | undefined {
  const precondition = storage.getStore()?.precondition;
  if (!precondition || precondition.used || precondition.resource !== resource || precondition.id !== id) return undefined;
  precondition.used = true;
  return { ifMatch: precondition.ifMatch, ifNoneMatch: precondition.ifNoneMatch };
}

/** The read preference of the generated route in progress (`routes: { search: { readPreference } }`), if it has one. */
export function routeReadPreference(): ReadPreferenceMode | undefined {
  return storage.getStore()?.readPreference;
}
