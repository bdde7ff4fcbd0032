import { Body, Param, Query, type Type } from '@nestjs/common';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { SearchParams } from '../query/search-params.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getRepositoryToken } from '../repository/model-repository.providers.js';
import { createControllerClass, defineHandlers } from './controller.util.js';

interface ReferenceController {
  /** Repository of the referencing model (Company). */
  source: ModelRepository;
  /** Repository of the referenced model (Entrepreneur). */
  target: ModelRepository;
}

/**
 * Builds the controller of one reference field (`CompanyOwnerReferenceController`):
 * - `GET /company/:company_id/owner`: the referenced document;
 * - `GET|POST /user/:user_id/companies/owner`: companies whose `owner` is that user,
 *   the client's query ANDed with that condition, never replacing it.
 */
export function createReferenceController(
  source: ResourceDefinition,
  target: ResourceDefinition,
  field: string,
  routes: RouteDefinition[],
  connectionName?: string,
): Type {
  const controller = createControllerClass(routes[0].controller, undefined, {
    source: getRepositoryToken(source.name, connectionName),
    target: getRepositoryToken(target.name, connectionName),
  });
  // The definition is read at request time: forRootAsync may set its search options after startup.
  const rules = source;

  async function searchByReference(this: ReferenceController, key: string, params: SearchParams) {
    const objectId = await this.target.resolveObjectId(key);
    // An identifier that names no document (possible with a custom `id` field) matches nothing.
    return this.source.search(params, { [field]: objectId ?? { $in: [] } });
  }

  defineHandlers<ReferenceController>(controller, routes, {
    referenceFind: {
      async handle(key: string) {
        const doc = await this.source.findOne(key);
        if (!doc) throw new ModelRoutesException('MR_NOT_FOUND', `${source.name} '${key}' not found`);
        const referenced = doc[field];
        if (referenced === undefined || referenced === null) {
          throw new ModelRoutesException('MR_REFERENCE_UNSET', `${source.name} '${key}' has no ${field}`);
        }
        const found = await this.target.findByObjectId(referenced as string);
        if (!found) {
          throw new ModelRoutesException(
            'MR_REFERENCE_BROKEN',
            `${source.name} '${key}' has ${field} '${String(referenced)}', but that ${target.name} does not exist (it was deleted)`,
          );
        }
        return found;
      },
      params: [Param(source.idParam)],
    },
    referenceSearch: {
      handle(key: string, query: Record<string, unknown>) {
        return searchByReference.call(this, key, parseSearchQueryString(query, rules));
      },
      params: [Param(target.idParam), Query()],
    },
    referenceSearchPost: {
      handle(key: string, body: unknown) {
        return searchByReference.call(this, key, parseSearchBody(body, rules));
      },
      params: [Param(target.idParam), Body()],
    },
  });
  return controller;
}
