import { Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { writePreconditionOf } from '../concurrency/conditional-request.js';
import type { HttpResponse } from '../call/http-response.util.js';
import { assertJsonBody } from './json-body.util.js';
import { ADMISSION, MODEL_ROUTES_SERIALIZATION } from '../constants.js';
import type { Admission, AdmissionTicket } from '../concurrency/admission.js';
import { endOfResponse } from './response-end.util.js';
import { exportQuery, parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import { bulkConditions, parseBulkQueryString } from '../query/bulk-query.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { resolveRelationFilters } from '../relations/relation-filter.js';
import { searchRulesOf } from '../relations/relation-rules.js';
import { Expansion } from '../relations/expansion.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { parseExpand } from '../query/expand.parser.js';
import type { ExpandPath, SearchParams, SearchRules } from '../query/search-params.interface.js';
import type { RouteActionRow } from '../metadata/route-actions.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import type { SerializationSettings } from '../serialization/serialization-settings.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import { writeRulesOf } from '../call/write-check.util.js';
import { isUnderAny } from '../query/field-path.util.js';
import { RouteCall, type CallRequest } from '../call/route-call.js';
import { setHeader } from '../call/http-response.util.js';
import { countPreferenceOf } from '../query/count-preference.parser.js';
import type { CountPolicy } from '../metadata/count-policies.js';
import { ROUTE_PLAN, type RoutePlan } from '../call/route-plan.js';

/** Where the entry guard leaves a request's call for the handler's `call` parameter (one property, as Passport leaves `request.user`). */
export const ROUTE_CALL = Symbol.for('nestjs-model-routes.route-call');

/**
 * The entry guard of every generated route: builds the request's `RouteCall` (`openRouteCall`)
 * and leaves it for the handler, which runs as that call.
 *
 * A guard, because Nest runs guards before interceptors and pipes, so the body is checked as the
 * client sent it, whatever the app's pipes would do to it: a global `ValidationPipe` with
 * `whitelist` silently drops unknown fields (which the library refuses), strips `__proto__` keys
 * (which it refuses too), and tells its failures as strings without paths. Its failures are the
 * library's, in the one error shape, with a path per failed constraint; a body that passes passes
 * the app's `ValidationPipe` too (it validates the same DTO class). It is the route's last guard,
 * so your guards (authentication) answer first. It is not an interceptor because an interceptor
 * costs a route its rxjs layers (see BENCHMARKS.md).
 */
@Injectable()
export class RouteCallGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(MODEL_ROUTES_SERIALIZATION) private readonly settings: SerializationSettings,
    private readonly targets: ReferenceTargets,
    @Inject(ADMISSION) private readonly admission: Admission,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const plan = this.reflector.get<RoutePlan>(ROUTE_PLAN, context.getHandler());
    const http = context.switchToHttp();
    const request = http.getRequest<CallRequest & { [ROUTE_CALL]?: RouteCall }>();
    const response = http.getResponse<HttpResponse>();
    const open = (ticket?: AdmissionTicket) => this.open(plan, request, response, ticket);
    // An export holds a place of its own for as long as it streams (its client's pace), given back when the response ends.
    if (plan.row.answers.shape === 'export') endOfResponse(response, this.admission.enterExport());
    // An import holds its place while its file arrives, at its client's pace: a few of them at once, so slow uploads cannot take every place.
    if (plan.row.answers.shape === 'report') endOfResponse(response, this.admission.enterImport());
    // An upload's route is not admitted here: it waits on its client for most of its time, and has its own bounds (size, body time-out, image work).
    // A request whose client goes away while it waits for a place leaves the queue: its work would answer nobody.
    // Its route is its kind, whose times an adaptive limit learns; an import's time is its client's, and teaches it nothing.
    const kind = plan.row.answers.shape === 'report' ? undefined : plan;
    const ticket = plan.row.upload ? undefined : this.admission.enter((withdraw) => endOfResponse(response, withdraw), kind);
    return ticket instanceof Promise ? ticket.then(open) : open(ticket);
  }

  /** Opens the request's call under its admission ticket, which is given back when the response ends and no work holds it. */
  private open(
    plan: RoutePlan,
    request: CallRequest & { [ROUTE_CALL]?: RouteCall },
    response: HttpResponse,
    ticket: AdmissionTicket | undefined,
  ): true | Promise<true> {
    if (ticket) {
      endOfResponse(response, () => ticket.end());
      ticket.hold();
    }
    let call: RouteCall | Promise<RouteCall>;
    try {
      call = openRouteCall(plan, request, response, (name) => this.targets.get(name), this.settings, ticket);
    } catch (error) {
      ticket?.fail(error);
      ticket?.unhold();
      ticket?.end();
      throw error;
    }
    if (!(call instanceof Promise)) {
      ticket?.unhold();
      return admit(request, call);
    }
    return call.then(
      (opened) => {
        ticket?.unhold();
        return admit(request, opened);
      },
      (error: unknown) => {
        ticket?.fail(error);
        ticket?.unhold();
        ticket?.end();
        throw error;
      },
    );
  }
}

function admit(request: { [ROUTE_CALL]?: RouteCall }, call: RouteCall): true {
  request[ROUTE_CALL] = call;
  return true;
}

/**
 * Builds the call of one request to a generated route, refusing it (a 4xx in the one error shape)
 * where its body or search is not one the route takes: the body must be JSON (`assertJsonBody`)
 * and pass the route's check; the search (the query string, or the body of a search route) is
 * parsed once, with the fields the request's serialization view allows, so that a field hidden
 * from its groups is refused as an unknown one. A write route's `If-Match` and `If-None-Match` are
 * read for the document its path names, and a search route's `Prefer: count=` (answered with
 * `Preference-Applied`). A search's conditions across references are resolved
 * to conditions on the references (`resolveRelationFilters`: one bounded query per condition).
 *
 * @param repositoryOf the repository of a model, with its settings as this app resolved them
 * @param ticket the request's place under the admission limit, which its handler holds while it works
 */
export function openRouteCall(
  plan: RoutePlan,
  request: CallRequest,
  response: HttpResponse,
  repositoryOf: (model: string) => ModelRepository,
  settings: SerializationSettings,
  ticket?: AdmissionTicket,
): RouteCall | Promise<RouteCall> {
  const { row, names } = plan;
  const resource = repositoryOf(plan.resource);
  const groups = settings.groups?.(request);
  const view = plan.views?.view(groups);
  assertFieldSeen(plan, request, resource.definition.serialization, groups);
  let checked: unknown;
  if (plan.body) {
    assertJsonBody(request.headers);
    // A field the request's groups do not see, it cannot write either: refused as a field that does not exist.
    checked = plan.body.check(request.body, writeRulesOf(resource.definition, groups));
  }
  const answered = plan.answers === plan.resource ? resource : repositoryOf(plan.answers);
  const finish = (checkedBody: unknown): RouteCall | Promise<RouteCall> => {
    const searches = row.searchQuery || row.body === 'search';
    const exports = row.answers.shape === 'export';
    const bulk = row.answers.shape === 'bulk';
    // An export and a bulk change count nothing.
    const count = searches && !exports && !bulk ? countPreferenceOf(request.headers.prefer) : undefined;
    // The rules of references cost a walk over the model's paths: built for a search, or for a read that names `expand`.
    const expands = row.expand === true && request.query?.expand !== undefined;
    const rules = searches || expands ? searchRulesOf(answered, groups, repositoryOf) : undefined;
    if (!searches || !rules) return opened(checkedBody, rules, undefined, count);
    const sent = row.searchQuery ? (exports ? exportQuery(request.query) : bulk ? bulkConditions(request.query) : request.query) : request.body;
    const parsed = exports
      ? parseExport(row, sent, rules)
      : bulk
        ? parseBulkQueryString(sent as Record<string, unknown> | undefined, rules)
        : row.searchQuery
          ? parseSearchQueryString(request.query, rules)
          : parseSearchBody(request.body, rules);
    // Conditions across references become conditions on the references here, once: handlers and the repository see an engine filter.
    // In the request's context: a referenced document outside its row scope matches no condition.
    const context = { request };
    const params = resolveRelationFilters(parsed, rules, { repositoryOf: (model) => repositoryOf(model).in(context), readPreference: plan.readPreference });
    return params instanceof Promise
      ? params.then((resolved) => opened(checkedBody, rules, { sent, params: resolved }, count))
      : opened(checkedBody, rules, { sent, params }, count);
  };
  const opened = (checkedBody: unknown, rules: SearchRules | undefined, search?: RouteCall['search'], count?: CountPolicy): RouteCall => {
    const expand = expandOf(row, request, rules, search?.params);
    const expansion = expand && new Expansion(expand, answered, groups, repositoryOf);
    const ifMatch = request.headers['if-match'];
    const ifNoneMatch = request.headers['if-none-match'];
    const conditionalWrite = row.conditional === 'write' && (ifMatch !== undefined || ifNoneMatch !== undefined);
    // RFC 7240: the answer names the preference it honours; every count asked for is given as asked.
    if (count) setHeader(response, 'Preference-Applied', `count=${count}`);
    return new RouteCall({
      plan,
      request,
      response,
      ...(plan.body && { body: { sent: request.body, checked: checkedBody } }),
      ...(search && { search }),
      ...(view && { view }),
      ...(groups && { groups }),
      ...(conditionalWrite && {
        precondition: { resource: names.source.name, id: request.params?.[names.source.idParam] ?? '', ...writePreconditionOf(request), used: false },
      }),
      ...(expansion && { expansion }),
      ...(count && { count }),
      requiresIfMatch: resource.definition.requireIfMatch === true,
      ...(ticket && { ticket }),
      ...(row.answers.shape === 'export' && { exported: answered.definition }),
    });
  };
  return checked instanceof Promise ? checked.then(finish) : finish(checked);
}

/**
 * The routes of one field (a file field's, the element routes of an array of sub-documents) reach
 * nothing for a request whose groups do not see the field: a 404 for the document, as a request for
 * a document that does not exist gets, so the field's content can be neither read nor written there.
 */
function assertFieldSeen(plan: RoutePlan, request: CallRequest, views: SerializationViews | undefined, groups: readonly string[] | undefined): void {
  const { row, names } = plan;
  if (!views || !names.field || (row.scope !== 'file' && row.scope !== 'element')) return;
  if (isUnderAny(names.field, views.view(groups).hidden)) throw ModelRoutesException.notFound(names.source.name, request.params?.[names.source.idParam] ?? '');
}

/**
 * The search of an export: the search routes' parse, with `exportMaxRows` as the largest `limit`
 * and the default one; without `limit`, the export is of every match (`everyMatch`).
 */
function parseExport(row: RouteActionRow, sent: unknown, rules: SearchRules): SearchParams {
  const maxRows = rules.search.exportMaxRows;
  const bounded = Object.assign({}, rules, { search: Object.assign({}, rules.search, { defaultLimit: maxRows, maxLimit: maxRows }) });
  const params = row.searchQuery ? parseSearchQueryString(sent as Record<string, unknown> | undefined, bounded) : parseSearchBody(sent, bounded);
  const limited = sent !== null && typeof sent === 'object' && (sent as { limit?: unknown }).limit !== undefined;
  return limited ? params : Object.assign({}, params, { everyMatch: true });
}

/**
 * What a request asks to expand: its search's `expand`, or the query string's on a route that reads
 * one document; `?expand` on a route that does not read documents is refused rather than ignored.
 */
function expandOf(row: RouteActionRow, request: CallRequest, rules: SearchRules | undefined, search: SearchParams | undefined): ExpandPath[] | undefined {
  if (search) return search.expand;
  const sent = request.query?.expand;
  if (sent === undefined) return undefined;
  if (!row.expand || !rules) throw ModelRoutesException.invalidQuery('expand', 'This route does not take expand: only the routes that read documents do');
  return parseExpand(sent, rules);
}
