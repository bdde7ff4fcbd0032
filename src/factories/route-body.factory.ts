import type { Type } from '@nestjs/common';
import { createBodyCheckGuard, type BodyCheck } from '../controllers/body-check.guard.js';
import { parseSearchBody } from '../query/search-params.parser.js';
import { checkWrite } from '../write/write-check.util.js';
import type { RouteBody } from './controller.util.js';

/** The bodies a generated route reads: a document to create, changes to merge, or a search. */
export type BodyKind = 'create' | 'update' | 'search';

// The handler of a write is given the checked data: what will be stored.
const write = (dto: Type): BodyCheck => (body, repository) => checkWrite(body, repository.definition, dto);

const CHECKS: Record<BodyKind, (dto: Type) => BodyCheck> = {
  create: write,
  update: write,
  // The handler parses the body as sent (with the limits in force), which this has checked.
  search: () => (body, repository) => {
    parseSearchBody(body, repository.definition);
    return body;
  },
};

/**
 * The DTO class of a route's body and the guard that checks the body with it, before any pipe, reading the definition of the repository `repositoryToken` names (so the search limits of
 * `forRootAsync` are those in force).
 *
 * @param name the interceptor's class name, e.g. `CompanyCreateBodyCheck`
 */
export function createRouteBody(kind: BodyKind, dto: Type, name: string, repositoryToken: string): RouteBody {
  return { dto, check: createBodyCheckGuard(name, repositoryToken, CHECKS[kind](dto)) };
}
