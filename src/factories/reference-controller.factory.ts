import type { Type } from '@nestjs/common';
import type { Types } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { ReferenceRouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction, type ReferenceActionName } from '../metadata/route-actions.js';
import type { SearchParams } from '../query/search-params.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import { createSearchDto } from '../dto/resource-dto.factory.js';
import { pascalCase } from '../utils/naming.util.js';
import { currentCall } from '../call/route-call.js';
import { createControllerClass, defineGeneratedHandler, foundIn, viewsFor } from './controller.util.js';
import { createRouteBody } from './route-body.factory.js';
import { routeNames } from './route-table.factory.js';

interface ReferenceController {
  /** Repository of the referencing model (Company). */
  source: ModelRepository;
  /** Where the repository of the referenced model (Entrepreneur) is, a resource's or a registered model's. */
  targets: ReferenceTargets;
  /** That repository. */
  readonly target: ModelRepository;
}

type Handlers = Record<ReferenceActionName, (this: ReferenceController, ...args: any[]) => Promise<unknown>>;

/**
 * Builds the controller of one reference field (`CompanyOwnerReferenceController`), one handler
 * per action of `ROUTE_ACTIONS` the field has: `find` (or `list` for an array of references),
 * `reverse` and `reversePost` (the client's query ANDed with the reference condition, never
 * replacing it), `add` and `remove` for an array. The source repository is injected; the target is read from `ReferenceTargets`.
 */
export function createReferenceController(
  source: ResourceDefinition,
  target: Pick<ResourceDefinition, 'name' | 'path' | 'idParam' | 'serialization'> | string,
  field: string,
  routes: ReferenceRouteDefinition[],
  connectionName?: string,
): Type {
  const targetName = typeof target === 'string' ? target : target.name;
  const controller = createControllerClass(routes[0].controller, undefined, { source: getModelRepositoryToken(source.name, connectionName), targets: ReferenceTargets });
  Object.defineProperty(controller.prototype, 'target', {
    get(this: ReferenceController) {
      return this.targets.get(targetName);
    },
  });
  const handlers = referenceHandlers(source, field, targetName);
  const names = routeNames(source, { field, target });
  // The reverse POST route's body: a search of the source model (`CompanyOwnerSearchDto`).
  const search = createRouteBody('search', createSearchDto(source.name, `${source.name}${pascalCase(field)}SearchDto`, source.dtos.search));
  for (const route of routes) {
    const { action } = route;
    const row = routeAction(action);
    defineGeneratedHandler(controller, route, {
      names,
      resource: source.name,
      answers: row.answers.of === 'target' ? targetName : source.name,
      views: viewsFor(route, source, target),
      ...(row.body && { body: search }),
      work: handlers[action],
    });
  }
  return controller;
}

/** The search the request's call parsed, if `sent` is the one it parsed. */
const searchOf = (sent: unknown) => currentCall()?.searchFor(sent);

function referenceHandlers(source: ResourceDefinition, field: string, targetName: string): Handlers {
  const found = foundIn(source.name);

  /**
   * The documents whose `field` holds the document `key` names. A `key` that names no document,
   * and that no document references, is a 404, so that a client can tell "no such parent" from
   * "no children". With `_id` identifiers the search runs first and the parent is looked up only
   * when nothing matches (a search that matches costs no more queries than a plain search); with
   * another id field (a slug) the lookup of the `_id` to search for comes first. A deleted parent
   * that documents still reference lists them (dangling references).
   */
  async function searchByReference(this: ReferenceController, key: string, params: SearchParams) {
    if (this.target.definition.idField === '_id') {
      const result = await this.source.search(params, { [field]: this.target.castId(key) });
      if (result.status.match_count === 0 && !(await this.target.existingObjectId(key))) throw ModelRoutesException.notFound(targetName, key);
      return result;
    }
    const objectId = await this.target.existingObjectId(key);
    if (!objectId) throw ModelRoutesException.notFound(targetName, key);
    return this.source.search(params, { [field]: objectId });
  }

  return {
    async find(key: string) {
      const doc = found(await this.source.findOne(key), key);
      const referenced = doc[field];
      if (referenced === undefined || referenced === null) {
        throw new ModelRoutesException('MR_REFERENCE_UNSET', `${source.name} '${key}' has no ${field}`);
      }
      const target = await this.target.findByObjectId(referenced as string);
      if (!target) {
        throw new ModelRoutesException(
          'MR_REFERENCE_BROKEN',
          `${source.name} '${key}' has ${field} '${String(referenced)}', but that ${targetName} does not exist (it was deleted)`,
        );
      }
      return target;
    },
    async list(key: string, query: Record<string, unknown>) {
      const doc = found(await this.source.findOne(key), key);
      const ids = (doc[field] as Types.ObjectId[] | undefined) ?? [];
      const [result, missing] = await Promise.all([
        this.target.search(searchOf(query) ?? parseSearchQueryString(query, this.target.definition), { _id: { $in: ids } }),
        this.target.missingObjectIds(ids),
      ]);
      // Dangling identifiers (their documents were deleted) are reported, never silently dropped.
      return { ...result, status: { ...result.status, missing: missing.map(String) } };
    },
    reverse(key: string, query: Record<string, unknown>) {
      return searchByReference.call(this, key, searchOf(query) ?? parseSearchQueryString(query, this.source.definition));
    },
    reversePost(key: string, body: unknown) {
      return searchByReference.call(this, key, searchOf(body) ?? parseSearchBody(body, this.source.definition));
    },
    async add(key: string, related: string) {
      const objectId = await this.target.resolveObjectId(related);
      if (!objectId || !(await this.target.findByObjectId(objectId))) throw ModelRoutesException.notFound(targetName, related);
      return found(await this.source.addReference(key, field, objectId), key);
    },
    async remove(key: string, related: string) {
      const objectId = await this.target.resolveObjectId(related);
      if (!objectId) throw ModelRoutesException.notFound(targetName, related);
      return found(await this.source.removeReference(key, field, objectId), key);
    },
  };
}
