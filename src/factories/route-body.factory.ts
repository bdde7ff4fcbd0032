import type { Type } from '@nestjs/common';
import type { BodyCheck, RouteBody } from '../call/route-plan.js';
import { checkWrite } from '../call/write-check.util.js';
import { checkCreate } from '../call/sub-type.util.js';
import type { DiscriminatorDefinition } from '../definitions/resource-definition.interface.js';

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

/**
 * The DTO class of a route's body and the library's check of it, run by the route's entry guard before any pipe.
 * With sub-types, a create is checked as the sub-type its key names (`BookCreateDto`, a Shirt's fields unknown).
 */
export function createRouteBody(kind: BodyKind, dto: Type, discriminator?: DiscriminatorDefinition): RouteBody {
  if (kind !== 'create' || !discriminator) return { dto, check: CHECKS[kind](dto) };
  return {
    dto,
    // The rules given are the request's view of the resource's already.
    check: (body, rules) => checkCreate(body, Object.assign({}, rules, { discriminator }), dto),
  };
}
