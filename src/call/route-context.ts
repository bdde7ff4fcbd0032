import { currentCall } from './route-call.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { WritePrecondition } from '../concurrency/entity-tag.js';
import type { CountPolicy } from '../metadata/count-policies.js';

/**
 * The conditions (`If-Match`, `If-None-Match`) of the request in progress (its `RouteCall`), if
 * it names this document of this resource and no write has used them yet; the write that takes
 * them applies them. So a generated route's write, an override's `super` call, or an override's
 * own repository write to the route's document are conditional, while writes to other documents
 * made by the same request are not.
 */
export function takePrecondition(resource: string, id: string): WritePrecondition | undefined {
  const precondition = currentCall()?.precondition;
  if (!precondition || precondition.used || precondition.resource !== resource || precondition.id !== id) return undefined;
  precondition.used = true;
  return { ifMatch: precondition.ifMatch, ifNoneMatch: precondition.ifNoneMatch };
}

/** The read preference of the generated route in progress (`routes: { search: { readPreference } }`), if it has one. */
export function routeReadPreference(): ReadPreferenceMode | undefined {
  return currentCall()?.readPreference;
}

/** The count the request in progress asked for (`Prefer: count=`), if it is a search route's and asked. */
export function routeCountPreference(): CountPolicy | undefined {
  return currentCall()?.count;
}
