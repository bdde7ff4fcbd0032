import { Body, Param, Query, type Type } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection, Model, Types } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { SearchParams } from '../query/search-params.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import { ModelRepository } from '../repository/model-repository.js';
import { getRepositoryToken } from '../repository/model-repository.providers.js';
import { createControllerClass, defineHandlers } from './controller.util.js';
import { createModelDefinition } from './resource-definition.factory.js';
import { relatedParam } from './route-table.factory.js';

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
  target: ResourceDefinition | string,
  field: string,
  routes: RouteDefinition[],
  connectionName?: string,
): Type {
  const targetName = typeof target === 'string' ? target : target.name;
  const controller = createControllerClass(
    routes[0].controller,
    undefined,
    typeof target === 'string'
      ? { source: getRepositoryToken(source.name, connectionName), connection: getConnectionToken(connectionName) }
      : { source: getRepositoryToken(source.name, connectionName), target: getRepositoryToken(target.name, connectionName) },
  );
  if (typeof target === 'string') useModelOfConnection(controller, target, `${source.name}.${field}`);
  // The definition is read at request time: forRootAsync may set its search options after startup.
  const rules = source;

  const found = <D>(doc: D | null, key: string): D => {
    if (!doc) throw ModelRoutesException.notFound(source.name, key);
    return doc;
  };

  /**
   * The documents whose `field` holds the document `key` names. A `key` that names no document is
   * a 404, so that a client can tell "no such parent" from "no children": with `_id` identifiers
   * the existence check runs beside the search; with another id field (a slug) it is the lookup
   * of the `_id` to search for.
   */
  async function searchByReference(this: ReferenceController, key: string, params: SearchParams) {
    const parent = this.target.definition.idField === '_id' ? (this.target.castId(key) as Types.ObjectId) : undefined;
    const [objectId, result] = await Promise.all([
      this.target.existingObjectId(key),
      parent && this.source.search(params, { [field]: parent }),
    ]);
    if (!objectId) throw ModelRoutesException.notFound(targetName, key);
    return result ?? this.source.search(params, { [field]: objectId });
  }

  defineHandlers<ReferenceController>(controller, routes, {
    referenceFind: {
      async handle(key: string) {
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
      params: [Param(source.idParam)],
    },
    referenceList: {
      async handle(key: string, query: Record<string, unknown>) {
        const doc = found(await this.source.findOne(key), key);
        const ids = (doc[field] as Types.ObjectId[] | undefined) ?? [];
        const [result, missing] = await Promise.all([
          this.target.search(parseSearchQueryString(query, this.target.definition), { _id: { $in: ids } }),
          this.target.missingObjectIds(ids),
        ]);
        // Dangling identifiers (their documents were deleted) are reported, never silently dropped.
        return { ...result, status: { ...result.status, missing: missing.map(String) } };
      },
      params: [Param(source.idParam), Query()],
    },
    referenceAdd: {
      async handle(key: string, related: string) {
        const objectId = await this.target.resolveObjectId(related);
        if (!objectId || !(await this.target.findByObjectId(objectId))) {
          throw ModelRoutesException.notFound(targetName, related);
        }
        return found(await this.source.addReference(key, field, objectId), key);
      },
      params: [Param(source.idParam), Param(relatedParamOf(source, target))],
    },
    referenceRemove: {
      async handle(key: string, related: string) {
        const objectId = await this.target.resolveObjectId(related);
        if (!objectId) throw ModelRoutesException.notFound(targetName, related);
        return found(await this.source.removeReference(key, field, objectId), key);
      },
      params: [Param(source.idParam), Param(relatedParamOf(source, target))],
    },
    referenceSearch: {
      handle(key: string, query: Record<string, unknown>) {
        return searchByReference.call(this, key, parseSearchQueryString(query, rules));
      },
      params: [Param(idParamOf(target)), Query()],
    },
    referenceSearchPost: {
      handle(key: string, body: unknown) {
        return searchByReference.call(this, key, parseSearchBody(body, rules));
      },
      params: [Param(idParamOf(target)), Body()],
    },
  });
  return controller;
}

function idParamOf(target: ResourceDefinition | string): string {
  return typeof target === 'string' ? '' : target.idParam;
}

function relatedParamOf(source: ResourceDefinition, target: ResourceDefinition | string): string {
  return typeof target === 'string' ? '' : relatedParam(source, target);
}

/**
 * A `ref` to a model registered with Mongoose but not listed as a resource gets the forward
 * route only; its model is taken from the connection when the module starts, and a model that
 * is registered nowhere stops the start.
 */
function useModelOfConnection(controller: Type, modelName: string, where: string): void {
  Object.defineProperty(controller.prototype, 'onModuleInit', {
    value(this: ReferenceController & { connection: Connection }) {
      if (!this.connection.modelNames().includes(modelName)) {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_UNKNOWN_REFERENCE',
          `${where} references '${modelName}', which is neither a resource nor a model registered with Mongoose. ` +
            `Add ${modelName} to ModelRoutesModule.forRoot({ resources }), or register it with MongooseModule.forFeature().`,
        );
      }
      const model = this.connection.model(modelName) as Model<Record<string, unknown>>;
      (this as { target: ModelRepository }).target = new ModelRepository(model, createModelDefinition(model));
    },
    configurable: true,
    writable: true,
  });
}
