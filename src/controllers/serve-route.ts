import type { HistoryPage } from '../rules/document-history.js';
import { etagOf, matchesWeakly, parseEntityTags } from '../concurrency/entity-tag.js';
import { setHeader } from '../call/http-response.util.js';
import { withJsonValues } from './json-output.util.js';
import { ModelRoutesException, NotModifiedException } from '../errors/model-routes.exception.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import { locationOf } from './location.util.js';
import { RouteCall, runCall } from '../call/route-call.js';
import type { RoutePlan } from '../call/route-plan.js';
import { withCall } from './serving.util.js';

/**
 * What every generated handler does: given the row's arguments and, last, the request's call (built
 * by `RouteCallGuard`), runs the route's work for that call (`runWork`), and answers. Called by code
 * instead (a generated `patch` calls `update`), with no call among its arguments, it runs the work
 * with those arguments in the caller's call, which governs conditions and answer. The request's
 * place under the admission limit (its call's `ticket`) is held while the work runs.
 */
export async function serveRoute(controller: object, plan: RoutePlan, args: unknown[]): Promise<unknown> {
  const call = args[plan.row.params.length];
  if (!(call instanceof RouteCall)) return withJsonValues(await plan.work.apply(controller, args));
  const own = args.slice(0, plan.row.params.length);
  const bodyAt = plan.row.params.indexOf('body');
  if (bodyAt >= 0) own[bodyAt] = call.bodyFor(own[bodyAt], plan.body?.dto);
  const { ticket } = call;
  if (!ticket) return answer(controller, call, own);
  // The request's place under the admission limit is given back as soon as its work is done, before its answer is written.
  ticket.hold();
  try {
    return await answer(controller, call, own);
  } catch (error) {
    ticket.fail(error);
    throw error;
  } finally {
    ticket.unhold();
    ticket.end();
  }
}

/**
 * The route's work and its answer: a write of a resource with `requireIfMatch` needs `If-Match`
 * (428 `MR_PRECONDITION_REQUIRED`, nothing written); the request's `If-Match` and `If-None-Match`
 * are applied by the repository, in the filter of the write of the document the path names (see
 * `takePrecondition`). A created document's URL is answered in `Location`; a document's `ETag`
 * is answered, and a read whose `If-None-Match` names it answers 304. The answer leaves with
 * identifiers as strings, whatever serializer the app uses (`withJsonValues`), then in the view of
 * the request's serialization groups. Done in the handler rather than interceptors: their rxjs
 * layers would cost every request of these routes more than all of this.
 */
async function answer(controller: object, call: RouteCall, args: unknown[]): Promise<unknown> {
  const { plan, row, request, response } = call;
  if (row.conditional === 'write' && call.requiresIfMatch && request.headers['if-match'] === undefined) {
    throw new ModelRoutesException('MR_PRECONDITION_REQUIRED', `Writes to ${plan.names.source.name} require If-Match: send the ETag of the document as read`);
  }
  const result = await runWork(controller, call, args);
  if (call.expansion && (row.answers.shape === 'document' || row.answers.shape === 'list')) await call.expansion.apply(result, row.answers.shape, call.context);
  if (plan.locationField && row.location) setHeader(response, 'Location', locationOf(request, (result as Record<string, unknown>)[plan.locationField]));
  const tag = row.conditional && etagOf(result);
  if (tag) {
    setHeader(response, 'ETag', tag);
    const ifNoneMatch = row.conditional === 'read' ? request.headers['if-none-match'] : undefined;
    if (ifNoneMatch !== undefined && matchesWeakly(parseEntityTags(ifNoneMatch), tag)) throw new NotModifiedException(tag);
  }
  return inView(call, withJsonValues(result));
}

/**
 * Runs the route's work for `call`: the library's own work (`plan.ownWork`) is handed the call in its
 * controller's view (`withCall`) and runs no code of the app's that would look a request up; an app's
 * override runs as the call in progress (`runCall`), which its own repository calls and its `super`
 * call read.
 */
export function runWork(controller: object, call: RouteCall, args: unknown[]): unknown {
  const { plan } = call;
  return plan.ownWork ? plan.work.apply(withCall(controller, call), args) : runCall(call, () => plan.work.apply(controller, args));
}

/** The answer in the view of the request's serialization groups, where the route's model has views that change it. */
function inView(call: RouteCall, result: unknown): unknown {
  // A bulk change's report names documents by their identifiers only: nothing of them to put in a view.
  if (call.row.answers.shape === 'bulk') return result;
  if (call.row.answers.shape === 'list') applyView(call, (result as SearchResult | undefined)?.result ?? []);
  else if (call.row.answers.shape === 'history')
    applyView(
      call,
      ((result as HistoryPage | undefined)?.result ?? []).map((entry) => entry.document),
    );
  else applyView(call, [result]);
  return result;
}

/** Puts documents in the view of the request's serialization groups, in place, where the route's model has views that change them. */
export function applyView(call: RouteCall, docs: readonly unknown[]): void {
  const { view, plan } = call;
  if (!view || !plan.views || (!view.hidden.size && !view.transformed.length)) return;
  for (const doc of docs) if (doc && typeof doc === 'object') plan.views.apply(doc as Record<string, unknown>, view);
}
