import type { RequestPrecondition } from '../concurrency/conditional-request.js';
import type { WritePrecondition } from '../concurrency/entity-tag.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { CountPolicy } from '../metadata/count-policies.js';

/**
 * What the repository, its rule stages (row scope, soft delete, hooks, history, events) and your
 * scope and hook functions know of the call they serve. The controller boundary builds it once per
 * request (`RouteCall.context`) and hands it to the repository explicitly: `repository.in(context)`.
 * Nothing below the controllers reads a request from anywhere else.
 *
 * Your own code outside a generated route needs none: a repository used without one reads and
 * writes unscoped, unless the work runs as a request's (`RowScopeInterceptor`, `runWithRequest`).
 *
 * @publicApi
 */
export interface CallContext {
  /**
   * The HTTP request (Express's or Fastify's). Below the controllers it is opaque: the library only
   * hands it to your row scopes, hooks and history `actor`, and remembers a scope resolved for it.
   */
  readonly request?: object;
  /** The route, as a history entry names it (`PATCH /company/:company_id`). */
  readonly route?: string;
  /** The request's serialization groups (`forRoot({ serializationGroups })`). */
  readonly groups?: readonly string[];
  /** Where the route's queries read (its `readPreference` option). */
  readonly readPreference?: ReadPreferenceMode;
  /** The count a search asked for (`Prefer: count=`). */
  readonly count?: CountPolicy;
  /** The `If-Match` and `If-None-Match` of a write route, for the document its path names; taken by the first write to it. */
  readonly precondition?: RequestPrecondition;
  /** The resource whose trash the call reads and writes (soft delete's restore, purge and trash search): its marked documents only. */
  readonly trash?: string;
}

/** The context of no call: code outside any request, which reads and writes unscoped. */
export const NO_CALL: CallContext = Object.freeze({});

/**
 * The conditions (`If-Match`, `If-None-Match`) of the call, if it names this document of this
 * resource and no write has taken them yet; the write that takes them applies them. So a generated
 * route's write, an override's `super` call, or an override's own repository write to the route's
 * document are conditional, while writes to other documents made by the same call are not.
 */
export function takePrecondition(call: CallContext, resource: string, id: string): WritePrecondition | undefined {
  const { precondition } = call;
  if (!precondition || precondition.used || precondition.resource !== resource || precondition.id !== id) return undefined;
  precondition.used = true;
  return { ifMatch: precondition.ifMatch, ifNoneMatch: precondition.ifNoneMatch };
}
