import { Body, Param, Query, Req, Res, type Type } from '@nestjs/common';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../query/search-params.parser.js';
import { assertWritableBody } from '../query/write-body.validator.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getRepositoryToken } from '../repository/model-repository.providers.js';
import { createControllerClass, defineHandlers } from './controller.util.js';

interface ResourceController {
  repository: ModelRepository;
}

/**
 * Builds the controller of one resource (`CompanyController`): get, create, update, delete,
 * and the two searches, each calling the resource's `ModelRepository`.
 */
export function createResourceController(
  definition: ResourceDefinition,
  routes: RouteDefinition[],
  connectionName?: string,
): Type {
  const controller = createControllerClass(routes[0].controller, {
    repository: getRepositoryToken(definition.name, connectionName),
  });
  const rules = { fields: definition.fields, search: definition.search };
  const id = Param(definition.idParam);
  const found = <D>(doc: D | null, key: string): D => {
    if (!doc) throw new ModelRoutesException('MR_NOT_FOUND', `${definition.name} '${key}' not found`);
    return doc;
  };

  defineHandlers<ResourceController>(controller, routes, {
    findOne: {
      async handle(key: string) {
        return found(await this.repository.findOne(key), key);
      },
      params: [id],
    },
    create: {
      async handle(body: unknown, request: HttpRequest, response: HttpResponse) {
        const doc = await this.repository.create(assertWritableBody(body, definition.fields));
        setHeader(response, 'Location', locationOf(request, doc[definition.idField]));
        return doc;
      },
      params: [Body(), Req(), Res({ passthrough: true })],
    },
    update: {
      async handle(key: string, body: unknown) {
        return found(await this.repository.update(key, assertWritableBody(body, definition.fields)), key);
      },
      params: [id, Body()],
    },
    delete: {
      async handle(key: string) {
        return found(await this.repository.delete(key), key);
      },
      params: [id],
    },
    search: {
      handle(query: Record<string, unknown>) {
        return this.repository.search(parseSearchQueryString(query, rules));
      },
      params: [Query()],
    },
    searchPost: {
      handle(body: unknown) {
        return this.repository.search(parseSearchBody(body, rules));
      },
      params: [Body()],
    },
  });
  return controller;
}

interface HttpRequest {
  originalUrl?: string;
  url?: string;
}

interface HttpResponse {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
}

/** `POST /api/company` → `/api/company/<id>`: built from the request, so global prefixes hold. */
function locationOf(request: HttpRequest, id: unknown): string {
  const base = (request.originalUrl ?? request.url ?? '').split('?')[0].replace(/\/+$/, '');
  return `${base}/${encodeURIComponent(String(id))}`;
}

/** Works with Express (`res.header`) and Fastify (`reply.header`) alike. */
function setHeader(response: HttpResponse, name: string, value: string): void {
  if (typeof response.header === 'function') response.header(name, value);
  else response.setHeader?.(name, value);
}
