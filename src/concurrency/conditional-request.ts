import { ModelRoutesException, NotModifiedException } from '../errors/model-routes.exception.js';
import { setHeader, type HttpResponse } from '../controllers/http-response.util.js';
import { etagOf, matchesWeakly, parseEntityTags, type WritePrecondition } from './entity-tag.js';
import { runInRouteContext } from './route-context.js';

/**
 * How a generated route takes part in conditional requests: `read` answers a document's `ETag`
 * and honours `If-None-Match` (304); `tag` only answers it (a create); `write` honours `If-Match`
 * (and `requireIfMatch`) and `If-None-Match` (412) for the document its path names, and answers
 * the new `ETag`.
 */
export type ConditionalKind = 'read' | 'tag' | 'write';

/** A generated route's part in conditional requests. */
export interface ConditionalRoute {
  kind: ConditionalKind;
  /** The resource whose document the path names (`Company`). */
  resource: string;
  /** Its path parameter (`company_id`). */
  idParam: string;
  /** Whether the resource's writes need `If-Match`, read from the controller (the settings in force, `forRootAsync`'s included). */
  requiresIfMatch(controller: unknown): boolean;
}

/** The request, as far as conditional requests read it (Express and Fastify alike). */
export interface ConditionalRequest {
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
}

/**
 * Runs a generated route's handler (`handle`) under the request's conditional headers, and answers
 * the `ETag` of the document it returns.
 *
 * A write route's `If-Match` and `If-None-Match` are handed to the repository for the document the
 * path names (see `takePrecondition`), which checks them in the filter of the write itself: a 412
 * when `If-Match` names another version or `If-None-Match` the current one (`*`: any), and nothing
 * written. Without the header, a resource with `requireIfMatch`
 * answers 428. A read whose `If-None-Match` names the current tag answers 304 (`NotModifiedException`).
 * Done in the handler rather than an interceptor: an interceptor's rxjs layers would cost every
 * request of these routes more than all of this.
 */
export async function handleConditionally<R>(
  route: ConditionalRoute,
  controller: unknown,
  request: ConditionalRequest,
  response: HttpResponse,
  handle: () => Promise<R>,
): Promise<R> {
  let result: R;
  if (route.kind === 'write') {
    const ifMatch = request.headers['if-match'];
    const ifNoneMatch = request.headers['if-none-match'];
    if (ifMatch === undefined && route.requiresIfMatch(controller)) {
      throw new ModelRoutesException('MR_PRECONDITION_REQUIRED', `Writes to ${route.resource} require If-Match: send the ETag of the document as read`);
    }
    result = ifMatch === undefined && ifNoneMatch === undefined
      ? await handle()
      : await runInRouteContext({ precondition: { resource: route.resource, id: request.params?.[route.idParam] ?? '', ...writePreconditionOf(request), used: false } }, handle);
  } else {
    result = await handle();
  }
  const tag = etagOf(result);
  if (!tag) return result;
  setHeader(response, 'ETag', tag);
  const ifNoneMatch = route.kind === 'read' ? request.headers['if-none-match'] : undefined;
  if (ifNoneMatch !== undefined && matchesWeakly(parseEntityTags(ifNoneMatch), tag)) throw new NotModifiedException(tag);
  return result;
}

/**
 * A write request's conditions, parsed: its `If-Match` and its `If-None-Match`. A route that
 * checks them before the write (an upload, before its body is read) and the write itself read the same.
 */
export function writePreconditionOf(request: ConditionalRequest): WritePrecondition {
  const ifMatch = request.headers['if-match'];
  const ifNoneMatch = request.headers['if-none-match'];
  return {
    ...(ifMatch !== undefined && { ifMatch: parseEntityTags(ifMatch) }),
    ...(ifNoneMatch !== undefined && { ifNoneMatch: parseEntityTags(ifNoneMatch) }),
  };
}
