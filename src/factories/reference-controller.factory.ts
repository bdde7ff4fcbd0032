import { Inject, type Type } from '@nestjs/common';
import { callOf, serving } from '../controllers/serving.util.js';
import type { Types } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { ReferenceRouteDefinition } from '../interfaces/route-definition.interface.js';
import { actionsOf, routeAction, type ReferenceActionName } from '../metadata/route-actions.js';
import type { SearchParams } from '../query/search-params.interface.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import { exportQuery, parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import { createSearchDto } from '../dto/resource-dto.factory.js';
import { pascalCase } from '../utils/naming.util.js';
import { serveRoute } from '../controllers/serve-route.js';
import { serveExport } from '../export/serve-export.js';
import { createControllerClass, decorateGeneratedHandler, foundIn, routePlans, viewsFor, type RoutePlans } from './controller.util.js';
import { createRouteBody } from './route-body.factory.js';
import { routeNames, type ReferenceTarget } from '../routes/route-table.factory.js';

/**
 * Builds the controller of one reference field (`CompanyOwnerReferenceController`): the handlers
 * (`ReferenceHandlers`) of the actions of `ROUTE_ACTIONS` the field has, over their work
 * (`ReferenceRoutes`).
 */
export function createReferenceController(
  source: ResourceDefinition,
  target: ReferenceTarget,
  field: string,
  routes: ReferenceRouteDefinition[],
  connectionName?: string,
): Type {
  const work = ReferenceRoutes(source, field, target.name, connectionName);
  const names = routeNames(source, { field, target });
  // The reverse POST route's body: a search of the source model (`CompanyOwnerSearchDto`).
  const search = createRouteBody('search', createSearchDto(source.name, `${source.name}${pascalCase(field)}SearchDto`, source.dtos.search));
  const plans = routePlans(actionsOf('reference'), routes, (action) => {
    const row = routeAction(action);
    return {
      names,
      resource: source.name,
      answers: row.answers.of === 'target' ? target.name : source.name,
      views: viewsFor(action, source, target),
      ...(row.body && { body: search }),
      work: work.prototype[action],
      // The work of a reference field is the library's alone: no class of the app extends it.
      ownWork: true,
    };
  });
  const handlers = referenceHandlers(work, plans);
  for (const route of routes) decorateGeneratedHandler(handlers, route, plans[route.action]);
  return createControllerClass(routes[0].controller, handlers, routes);
}

/**
 * The work of the routes of one reference field, one method per action: `find` (or `list` for an
 * array of references), `reverse` and `reversePost` (the client's query ANDed with the reference
 * condition, never replacing it), `add` and `remove` for an array. The source repository is
 * injected; the target's is read from `ReferenceTargets` (a resource's, or a registered model's).
 */
function ReferenceRoutes(definition: ResourceDefinition, field: string, targetName: string, connectionName: string | undefined) {
  const found = foundIn(definition.name);

  class ReferenceRoutesBase {
    /** Repository of the referencing model (Company). */
    @Inject(getModelRepositoryToken(definition.name, connectionName)) readonly source!: ModelRepository;
    /** Where the repository of the referenced model (Entrepreneur) is. */
    @Inject(ReferenceTargets) readonly targets!: ReferenceTargets;

    /** The repository of the referenced model, serving the call in progress (a view made on each access: read it once per call). */
    get target(): ModelRepository {
      return serving(this, this.targets.get(targetName));
    }

    async find(key: string) {
      const doc = found(await serving(this, this.source).findOne(key), key);
      const referenced = doc[field];
      if (referenced === undefined || referenced === null) {
        throw new ModelRoutesException('MR_REFERENCE_UNSET', `${definition.name} '${key}' has no ${field}`);
      }
      const target = await this.target.findByObjectId(referenced as string);
      if (!target) {
        throw new ModelRoutesException(
          'MR_REFERENCE_BROKEN',
          `${definition.name} '${key}' has ${field} '${String(referenced)}', but that ${targetName} does not exist (it was deleted)`,
        );
      }
      return target;
    }

    async list(key: string, query: Record<string, unknown>) {
      const doc = found(await serving(this, this.source).findOne(key), key);
      const ids = (doc[field] as Types.ObjectId[] | undefined) ?? [];
      // One view of the target for the call (each `this.target` makes one).
      const target = this.target;
      const [result, missing] = await Promise.all([
        target.search(callOf(this)?.searchFor(query) ?? parseSearchQueryString(query, target.definition), { _id: { $in: ids } }),
        target.missingObjectIds(ids),
      ]);
      // Dangling identifiers (their documents were deleted) are reported, never silently dropped.
      return Object.assign({}, result, { status: Object.assign({}, result.status, { missing: missing.map(String) }) });
    }

    reverse(key: string, query: Record<string, unknown>) {
      return this.searchByReference(key, callOf(this)?.searchFor(query) ?? parseSearchQueryString(query, this.source.definition));
    }

    reversePost(key: string, body: unknown) {
      return this.searchByReference(key, callOf(this)?.searchFor(body) ?? parseSearchBody(body, this.source.definition));
    }

    async reverseExport(key: string, query: Record<string, unknown>) {
      const search = exportQuery(query);
      return serving(this, this.source).exportPages(
        callOf(this)?.searchFor(search) ?? parseSearchQueryString(search, this.source.definition),
        await this.referencing(key),
      );
    }

    async reverseExportPost(key: string, body: unknown) {
      return serving(this, this.source).exportPages(
        callOf(this)?.searchFor(body) ?? parseSearchBody(body, this.source.definition),
        await this.referencing(key),
      );
    }

    async add(key: string, related: string) {
      const target = this.target;
      const objectId = await target.resolveObjectId(related);
      if (!objectId || !(await target.findByObjectId(objectId))) throw ModelRoutesException.notFound(targetName, related);
      return found(await serving(this, this.source).addReference(key, field, objectId), key);
    }

    async remove(key: string, related: string) {
      const objectId = await this.target.resolveObjectId(related);
      if (!objectId) throw ModelRoutesException.notFound(targetName, related);
      return found(await serving(this, this.source).removeReference(key, field, objectId), key);
    }

    /**
     * The documents whose `field` holds the document `key` names. A `key` that names no document,
     * and that no document references, is a 404, so that a client can tell "no such parent" from
     * "no children". With `_id` identifiers the search runs first and the parent is looked up only
     * when nothing matches (a search that matches costs no more queries than a plain search); with
     * another id field (a slug) the lookup of the `_id` to search for comes first. A deleted parent
     * that documents still reference lists them (dangling references). Uncounted (`Prefer:
     * count=none`), an empty page after `skip` may have matches before it: it is answered as it is.
     * Where the request has a row scope of the referenced resource, the parent is looked up first:
     * one outside the scope is a 404, as a deleted one is then (the two are never told apart).
     */
    private async searchByReference(key: string, params: SearchParams) {
      const target = this.target;
      if (target.definition.idField === '_id' && !target.isScoped()) {
        const result = await serving(this, this.source).search(params, { [field]: target.castId(key) });
        if (nothingMatched(result.status) && !(await target.existingObjectId(key))) throw ModelRoutesException.notFound(targetName, key);
        return result;
      }
      const objectId = await target.existingObjectId(key);
      if (!objectId) throw ModelRoutesException.notFound(targetName, key);
      return serving(this, this.source).search(params, { [field]: objectId });
    }

    /**
     * The condition of the documents whose `field` holds the document `key` names, for an export
     * (which answers no page to look at first): a 404 when `key` names no document and no document
     * references it, as `searchByReference` answers.
     */
    private async referencing(key: string): Promise<Record<string, unknown>> {
      const target = this.target;
      if (target.definition.idField !== '_id' || target.isScoped()) {
        const objectId = await target.existingObjectId(key);
        if (!objectId) throw ModelRoutesException.notFound(targetName, key);
        return { [field]: objectId };
      }
      const scope = { [field]: target.castId(key) };
      if (!(await target.existingObjectId(key)) && !(await serving(this, this.source).matchingObjectIds(scope, 1)).length)
        throw ModelRoutesException.notFound(targetName, key);
      return scope;
    }
  }
  return ReferenceRoutesBase;
}

/**
 * The handlers of a reference field's routes, over their work: each hands its arguments (the
 * row's, then the request's call) to `serveRoute` with its route's plan. Made per controller:
 * route metadata lives on the function objects.
 */
function referenceHandlers(work: Type, plans: RoutePlans<ReferenceActionName>): Type {
  class ReferenceHandlers extends work {
    find(...args: unknown[]) {
      return serveRoute(this, plans.find, args);
    }
    list(...args: unknown[]) {
      return serveRoute(this, plans.list, args);
    }
    reverse(...args: unknown[]) {
      return serveRoute(this, plans.reverse, args);
    }
    reversePost(...args: unknown[]) {
      return serveRoute(this, plans.reversePost, args);
    }
    reverseExport(...args: unknown[]) {
      return serveExport(this, plans.reverseExport, args);
    }
    reverseExportPost(...args: unknown[]) {
      return serveExport(this, plans.reverseExportPost, args);
    }
    add(...args: unknown[]) {
      return serveRoute(this, plans.add, args);
    }
    remove(...args: unknown[]) {
      return serveRoute(this, plans.remove, args);
    }
  }
  return ReferenceHandlers;
}

/** Whether a search's answer shows that nothing matched: counted 0, or, uncounted, an empty first page. */
function nothingMatched(status: SearchResult['status']): boolean {
  return status.match_count === undefined ? status.search_count === 0 && status.skip === 0 : status.match_count === 0;
}
