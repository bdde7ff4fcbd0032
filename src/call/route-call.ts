import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';
import type { Type } from '@nestjs/common';
import type { AdmissionTicket } from '../concurrency/admission.js';
import type { RequestPrecondition } from '../concurrency/conditional-request.js';
import type { HttpResponse } from './http-response.util.js';
import { toPlainData } from '../dto/dto-validation.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { RouteActionName, RouteActionRow, RouteNames } from '../metadata/route-actions.js';
import type { ExpandPath, SearchParams } from '../query/search-params.interface.js';
import type { CountPolicy } from '../metadata/count-policies.js';
import type { SerializationView } from '../serialization/serialization-views.js';
import type { RoutePlan } from './route-plan.js';
import type { RepositoryDefinition } from '../definitions/repository-definition.interface.js';
import type { CallContext } from './call-context.js';

/** The request of a generated route, as the call reads it (Express and Fastify alike). */
export interface CallRequest {
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  originalUrl?: string;
  url?: string;
}

/** The references a request asked to expand, and how to expand them in its answer (see `Expansion`). */
export interface CallExpansion {
  readonly paths: readonly ExpandPath[];
  /** Expands the documents of an answer in place (one document, or a search envelope's), reading the targets the call may read. */
  apply(answer: unknown, shape: 'document' | 'list', context: CallContext): Promise<void>;
}

/** What a `RouteCall` is made of; see its properties. */
export interface RouteCallParts {
  plan: RoutePlan;
  request: CallRequest;
  response: HttpResponse;
  body?: { sent: unknown; checked: unknown };
  search?: { sent: unknown; params: SearchParams };
  view?: SerializationView;
  groups?: readonly string[];
  precondition?: RequestPrecondition;
  expansion?: CallExpansion;
  count?: CountPolicy;
  requiresIfMatch: boolean;
  ticket?: AdmissionTicket;
  exported?: Pick<RepositoryDefinition, 'name' | 'schema' | 'fields' | 'files'>;
}

/**
 * Everything one request to a generated route carries, built once by the route's entry guard
 * (`RouteCallGuard`, see `openRouteCall`) and read by its handler, the repository and the
 * serialization of its answer through `currentCall()`: the row and its names, the path ids by name,
 * the checked write body or the parsed search, the serialization view, the `If-Match`
 * precondition, the read preference, the count preference, the request and the response.
 */
export class RouteCall {
  /** The route's plan: its action, row, names and static settings. */
  readonly plan: RoutePlan;
  readonly request: CallRequest;
  readonly response: HttpResponse;
  /** The body as sent and what the library's check made of it (the data to store), for a route that reads one. */
  readonly body?: { readonly sent: unknown; readonly checked: unknown };
  /** The search as sent (the query string or the body) and parsed once, with the fields the view allows. */
  readonly search?: { readonly sent: unknown; readonly params: SearchParams };
  /** The serialization view of the request's groups, for a route whose model has views. */
  readonly view?: SerializationView;
  /** The request's serialization groups (`forRoot({ serializationGroups })`): what it may see, and so write. */
  readonly groups?: readonly string[];
  /** The `If-Match` and `If-None-Match` of a write route, for the document its path names; taken by its first write. */
  readonly precondition?: RequestPrecondition;
  /** Whether the writes of the route's resource need `If-Match` (the settings in force). */
  readonly requiresIfMatch: boolean;
  /** The references the request asked to expand (`?expand=`, or its search body's `expand`), on a route that takes it. */
  readonly expansion?: CallExpansion;
  /** The count a search route's request asked for (`Prefer: count=exact|estimated|none`), if it asked. */
  readonly count?: CountPolicy;
  /** The request's place under the admission limit (`forRoot({ admission })`), held while its work runs. */
  readonly ticket?: AdmissionTicket;
  /** An export route's: the model whose documents it writes (their columns are read from its fields). */
  readonly exported?: Pick<RepositoryDefinition, 'name' | 'schema' | 'fields' | 'files'>;
  /** What the repository, its rules and your scope and hook functions are handed of this call (`repository.in(call.context)`). */
  readonly context: CallContext;

  constructor(parts: RouteCallParts) {
    this.plan = parts.plan;
    this.request = parts.request;
    this.response = parts.response;
    this.body = parts.body;
    this.search = parts.search;
    this.view = parts.view;
    this.groups = parts.groups;
    this.precondition = parts.precondition;
    this.requiresIfMatch = parts.requiresIfMatch;
    this.expansion = parts.expansion;
    this.count = parts.count;
    this.ticket = parts.ticket;
    this.exported = parts.exported;
    const { plan } = parts;
    this.context = {
      request: parts.request,
      ...(plan.row && { route: routeOf(plan) }),
      ...(parts.groups && { groups: parts.groups }),
      ...(plan.readPreference && { readPreference: plan.readPreference }),
      ...(parts.count && { count: parts.count }),
      ...(parts.precondition && { precondition: parts.precondition }),
    };
  }

  get action(): RouteActionName {
    return this.plan.action;
  }

  get row(): RouteActionRow {
    return this.plan.row;
  }

  get names(): RouteNames {
    return this.plan.names;
  }

  /** Where the route's queries read (its `readPreference` option), if it has one. */
  get readPreference(): ReadPreferenceMode | undefined {
    return this.plan.readPreference;
  }

  /**
   * What the handler is given as its body, from what the pipes made of the request's (`piped`):
   * the checked body where they left it alone (the very object sent, or an instance of the route's
   * DTO class, which a `ValidationPipe` with `transform` validated as the check did); else what
   * they made of it, as plain data, to be checked again by the handler.
   */
  bodyFor(piped: unknown, dto: Type | undefined): unknown {
    if (this.body && (piped === this.body.sent || (dto && piped instanceof dto))) return this.body.checked;
    return toPlainData(piped);
  }

  /**
   * The search parsed for this call, if `sent` is the search it parsed: the very object, or one
   * equal to it (Express 5 parses the query string again on each read of `request.query`), whose
   * parse would be the same. A search of any other content (your pipe rewrote it) is not this call's.
   */
  searchFor(sent: unknown): SearchParams | undefined {
    if (!this.search) return undefined;
    return this.search.sent === sent || isDeepStrictEqual(this.search.sent, sent) ? this.search.params : undefined;
  }

  /** Whether `body` is this call's checked write body (so needs no other check: an override's `super` call). */
  isCheckedWrite(body: unknown): body is Record<string, unknown> {
    return this.body !== undefined && this.body.checked === body && typeof body === 'object' && body !== null;
  }
}

const routes = new WeakMap<RoutePlan, string>();

/** `PATCH /company/:company_id`: the route of a plan, made once (a bare plan, a unit test's, has no row to name it by). */
function routeOf(plan: RoutePlan): string {
  let route = routes.get(plan);
  if (route === undefined) {
    route = `${plan.row.method} ${plan.row.path(plan.names)}`;
    routes.set(plan, route);
  }
  return route;
}

const slot = new AsyncLocalStorage<RouteCall>();

/** The call of the generated route in progress, if any: read by the controllers (handlers, the answer's serialization), never below them. */
export function currentCall(): RouteCall | undefined {
  return slot.getStore();
}

/** Runs `work` as the call in progress. */
export function runCall<R>(call: RouteCall, work: () => R): R {
  return slot.run(call, work);
}

const requestSlot = new AsyncLocalStorage<object>();

/**
 * The view of the work in progress, for a repository your own code calls without handing it one
 * (`@InjectModelRepository`): the generated route's call in progress (your override's code), else
 * the request `runWithRequest` names (`RowScopeInterceptor`: your own routes); `undefined` outside
 * any, where your code reads and writes unscoped. The one place below which no request is looked up:
 * the module hands it to each repository it builds (`ModelRepository`'s `ambient` option).
 */
export function ambientContext(): CallContext | undefined {
  const call = slot.getStore();
  if (call) return call.context;
  const request = requestSlot.getStore();
  return request && { request };
}

/**
 * Runs `work` as the work of `request`: the repositories it calls apply that request's row scopes
 * (`@GeneratedResource({ scope })`), as they do in a generated route. For your own routes, which
 * the library does not open a call for.
 *
 * @example
 * ```ts
 * @Get('mine/stats')
 * stats(@Req() request: Request) {
 *   return runWithRequest(request, () => this.companies.search({ filter: {}, limit: 1, skip: 0 }));
 * }
 * ```
 *
 * @publicApi
 */
export function runWithRequest<R>(request: object, work: () => R): R {
  return requestSlot.run(request, work);
}
