import { Inject, type Type } from '@nestjs/common';
import { serving } from '../controllers/serving.util.js';
import mongoose from 'mongoose';
import { setHeader, type HttpResponse } from '../call/http-response.util.js';
import { checkBodyValues } from '../call/write-check.util.js';
import { mapError } from '../errors/error-response.mapper.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ElementFieldDefinition, ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { ElementRouteDefinition } from '../interfaces/route-definition.interface.js';
import { actionsOf, routeAction, type ElementActionName } from '../metadata/route-actions.js';
import { isPlainObject } from '../query/field-path.util.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import { elementRules, type ElementRules } from '../write/element-rules.util.js';
import type { RouteBody } from '../call/route-plan.js';
import { serveRoute } from '../controllers/serve-route.js';
import { createControllerClass, decorateGeneratedHandler, routePlans, viewsFor, type RoutePlans } from './controller.util.js';
import { locationOf, type HttpRequest } from './resource-controller.factory.js';
import { elementRouteNames } from '../routes/route-table.factory.js';

/**
 * Builds the controller of the elements of one array of sub-documents (`PetVaccinationsElementController`):
 * the handlers (`ElementHandlers`) of its routes over their work (`ElementRoutes`). Bodies are
 * checked as the elements of a write of the whole document are (the field rules, then the
 * generated element class), with paths relative to the element (`date`, not `vaccinations.0.date`).
 */
export function createElementController(
  source: ResourceDefinition,
  element: ElementFieldDefinition,
  routes: ElementRouteDefinition[],
  connectionName?: string,
): Type {
  const { field } = element;
  const rules = elementRules(source.fields, field);
  const dtos = source.dtos.elements?.get(field);
  const bodies: Record<'element' | 'elementPatch', RouteBody | undefined> = {
    element: dtos && { dto: dtos.add, check: (body) => checkElement(body, rules, dtos.add, field) },
    elementPatch: dtos && { dto: dtos.patch, check: (body) => checkElement(body, rules, dtos.patch, field) },
  };
  const work = ElementRoutes(source, element, rules, connectionName);
  const names = elementRouteNames(source, field);
  const plans = routePlans(actionsOf('element'), routes, (action) => {
    const body = routeAction(action).body as 'element' | 'elementPatch' | undefined;
    return {
      names,
      resource: source.name,
      answers: source.name,
      views: viewsFor(action, source),
      ...(body && bodies[body] && { body: bodies[body] }),
      work: work.prototype[action],
      ownWork: true,
    };
  });
  const handlers = elementHandlers(work, plans);
  for (const route of routes) decorateGeneratedHandler(handlers, route, plans[route.action]);
  return createControllerClass(routes[0].controller, handlers, routes);
}

/**
 * Checks the body of an element route: a JSON object whose keys the element's rules allow
 * (`MR_INVALID_BODY` for unknown, hidden, readonly fields and `_id`), whose values its class accepts.
 */
function checkElement(body: unknown, rules: ElementRules, dto: Type, field: string): Record<string, unknown> | Promise<Record<string, unknown>> {
  if (!isPlainObject(body)) throw ModelRoutesException.invalidBody('body', 'The request body must be a JSON object');
  try {
    const data = checkBodyValues(body, { fields: rules }, dto);
    return data instanceof Promise ? data.catch((error: unknown) => Promise.reject(inElement(error, field))) : data;
  } catch (error) {
    throw inElement(error, field);
  }
}

/**
 * A failure of a write to one element, its paths relative to the element: Mongoose names
 * `vaccinations.3.date` (or `vaccinations`) where the client sent `date`.
 */
function inElement(error: unknown, field: string): unknown {
  const mapped = error instanceof ModelRoutesException ? undefined : mapError(error);
  if (mapped?.unexpected) return error;
  const code = error instanceof ModelRoutesException ? error.code : mapped!.body.code;
  const message = error instanceof ModelRoutesException ? error.message : mapped!.body.message;
  const details = error instanceof ModelRoutesException ? error.details : mapped!.body.details;
  if (!details?.length) return error;
  const relative = (path: string) => (path === field ? field : path.replace(new RegExp(`^${escapeRegExp(field)}\\.(?:(?:\\d+|\\$)\\.)?`), ''));
  let text = message;
  for (const detail of details) if (detail.path !== relative(detail.path)) text = text.split(detail.path).join(relative(detail.path) || 'the element');
  return new ModelRoutesException(
    code as never,
    text,
    details.map((detail) => Object.assign({}, detail, { path: relative(detail.path) })),
    error instanceof ModelRoutesException ? error.headers : undefined,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The work of the element routes of one array of sub-documents, one method per action:
 * `addElement`, `findElement`, `patchElement` and `deleteElement`, on the resource's repository.
 */
function ElementRoutes(source: ResourceDefinition, element: ElementFieldDefinition, rules: ElementRules, connectionName: string | undefined) {
  const { field } = element;
  const subId = (source.schema.path(field) as unknown as { schema: mongoose.Schema }).schema.path('_id');

  /** The answer of a route: a 404 `MR_NOT_FOUND` without the document, `MR_ELEMENT_NOT_FOUND` without the element. */
  const answer = <D>(result: D | null | undefined, key: string, id?: string): D => {
    if (result === null) throw ModelRoutesException.notFound(source.name, key);
    if (result === undefined) throw new ModelRoutesException('MR_ELEMENT_NOT_FOUND', `${source.name} '${key}' has no element '${id}' in ${field}`);
    return result;
  };

  /** The element `_id` of the path, cast; a 400 `MR_INVALID_ID` when it cannot be one. */
  const elementIdOf = (value: string): unknown => {
    try {
      if (value.length > 64) throw new Error('too long');
      return subId.cast(value, undefined, false);
    } catch {
      throw new ModelRoutesException('MR_INVALID_ID', `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}' is not an element identifier of ${field}`, [
        { path: '_id', message: 'invalid identifier' },
      ]);
    }
  };

  /** A write, its failures told with paths relative to the element. */
  const writing = async <R>(write: () => Promise<R>): Promise<R> => {
    try {
      return await write();
    } catch (error) {
      throw inElement(error, field);
    }
  };

  class ElementRoutesBase {
    @Inject(getModelRepositoryToken(source.name, connectionName)) readonly repository!: ModelRepository;

    async addElement(key: string, body: Record<string, unknown>, request: HttpRequest, response: HttpResponse) {
      const added = answer(await writing(() => serving(this, this.repository).addElement(key, field, body, { rules, maxElements: element.maxElements })), key);
      setHeader(response, 'Location', locationOf(request, added.elementId));
      return added.doc;
    }

    async findElement(key: string, id: string) {
      this.repository.castId(key);
      return answer(await serving(this, this.repository).findElement(key, field, elementIdOf(id)), key, id);
    }

    async patchElement(key: string, id: string, body: Record<string, unknown>) {
      this.repository.castId(key);
      const elementId = elementIdOf(id);
      return answer(await writing(() => serving(this, this.repository).updateElement(key, field, elementId, body, rules)), key, id);
    }

    async deleteElement(key: string, id: string) {
      this.repository.castId(key);
      return answer(await serving(this, this.repository).removeElement(key, field, elementIdOf(id)), key, id);
    }
  }
  return ElementRoutesBase;
}

/**
 * The handlers of an array's element routes, over their work: each hands its arguments (the
 * row's, then the request's call) to `serveRoute` with its route's plan. Made per controller:
 * route metadata lives on the function objects.
 */
function elementHandlers(work: Type, plans: RoutePlans<ElementActionName>): Type {
  class ElementHandlers extends work {
    addElement(...args: unknown[]) {
      return serveRoute(this, plans.addElement, args);
    }
    findElement(...args: unknown[]) {
      return serveRoute(this, plans.findElement, args);
    }
    patchElement(...args: unknown[]) {
      return serveRoute(this, plans.patchElement, args);
    }
    deleteElement(...args: unknown[]) {
      return serveRoute(this, plans.deleteElement, args);
    }
  }
  return ElementHandlers;
}
