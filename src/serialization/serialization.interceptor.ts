import { Inject, Injectable, UseInterceptors, type CallHandler, type ExecutionContext, type NestInterceptor, type Type } from '@nestjs/common';
import { map, type Observable } from 'rxjs';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction, type RouteActionName } from '../metadata/route-actions.js';
import { parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { SerializationViews } from './serialization-views.js';

/** Injection token of a registration's `serializationGroups` option, private to its module. */
export const MODEL_ROUTES_SERIALIZATION = Symbol('ModelRoutesSerialization');

/** What the interceptor reads from `forRoot`: how to find a request's groups. */
export interface SerializationSettings {
  groups?: (request: any) => string[] | undefined;
}

const SERIALIZED_ROUTE = Symbol('nestjs-model-routes:serialized-route');

/** What a generated route answers and reads, as the interceptor needs it. */
interface SerializedRoute {
  /** The model whose documents it answers (and whose search it reads). */
  model: string;
  views: SerializationViews;
  shape: 'document' | 'list';
  /** Where its search is, if it reads one. */
  search?: 'query' | 'body';
}

/** A model as the controller factories know it: a resource's definition, or only a name. */
type RouteModel = { name: string; serialization?: SerializationViews } | string;

/**
 * Gives the responses of a generated route the view of the request's groups
 * (`forRoot({ serializationGroups })`), and refuses, before the handler runs, a search that
 * filters, sorts or selects a field those groups do not see, with the answer an unknown field
 * gets: a client cannot tell "hidden from me" from "does not exist". Installed only on the routes
 * of models whose class-transformer decorators make a difference (see `serializeRoute`).
 */
@Injectable()
export class SerializationInterceptor implements NestInterceptor {
  constructor(
    @Inject(MODEL_ROUTES_SERIALIZATION) private readonly settings: SerializationSettings,
    private readonly targets: ReferenceTargets,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const route = Reflect.getMetadata(SERIALIZED_ROUTE, context.getHandler()) as SerializedRoute | undefined;
    if (!route) return next.handle();
    const request = context.switchToHttp().getRequest<{ query?: Record<string, unknown>; body?: unknown }>();
    const view = route.views.view(this.settings.groups?.(request));
    if (route.search && view.hidden.size) {
      // The handler parses the search again with the model's own rules; this pass only refuses what these groups cannot see.
      const rules = { fields: view.fields, search: this.targets.get(route.model).definition.search };
      if (route.search === 'query') parseSearchQueryString(request.query, rules);
      else parseSearchBody(request.body, rules);
    }
    if (!view.hidden.size && !view.transformed.length) return next.handle();
    const apply = (doc: unknown) => doc && typeof doc === 'object' && route.views.apply(doc as Record<string, unknown>, view);
    return next.handle().pipe(
      map((result) => {
        if (route.shape === 'list') (result as SearchResult | undefined)?.result?.forEach(apply);
        else apply(result);
        return result;
      }),
    );
  }
}

/**
 * Puts the `SerializationInterceptor` on a generated route's handler, innermost (after the route's
 * own interceptors), when the model it answers has views: a route of a class without
 * class-transformer decorators gets nothing. `source` answers the resource's routes and the
 * reverse and relationship routes; `target` the forward routes of a reference.
 */
export function serializeRoute(controller: Type, route: RouteDefinition, source: RouteModel, target?: RouteModel): void {
  const row = routeAction(route.action as RouteActionName);
  const model = row.answers.of === 'target' ? target : source;
  if (!model || typeof model === 'string' || !model.serialization || row.answers.shape === 'file' || row.answers.shape === 'element') return;
  const prototype = controller.prototype as Record<string, Function>;
  const metadata: SerializedRoute = {
    model: model.name,
    views: model.serialization,
    shape: row.answers.shape as 'document' | 'list',
    search: row.searchQuery ? 'query' : row.body === 'search' ? 'body' : undefined,
  };
  Reflect.defineMetadata(SERIALIZED_ROUTE, metadata, prototype[route.handler]);
  UseInterceptors(SerializationInterceptor)(prototype, route.handler, Object.getOwnPropertyDescriptor(prototype, route.handler)!);
}
