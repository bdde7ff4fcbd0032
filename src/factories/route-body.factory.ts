import type { Type } from '@nestjs/common';
import type { BodyCheck, RouteBody } from '../call/route-plan.js';
import { checkWrite } from '../call/write-check.util.js';

/** The bodies a generated route reads: a document to create, changes to merge, or a search. */
export type BodyKind = 'create' | 'update' | 'search';

// The handler of a write is given the checked data: what will be stored.
const write =
  (dto: Type): BodyCheck =>
  (body, rules) =>
    checkWrite(body, rules, dto);

const CHECKS: Record<BodyKind, (dto: Type) => BodyCheck> = {
  create: write,
  update: write,
  // The search is parsed by the route's call (once, with the fields the request's view allows); the handler is given the body as sent.
  search: () => (body) => body,
};

/** The DTO class of a route's body and the library's check of it, run by the route's entry guard before any pipe. */
export function createRouteBody(kind: BodyKind, dto: Type): RouteBody {
  return { dto, check: CHECKS[kind](dto) };
}
