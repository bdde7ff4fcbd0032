import type { Type } from '@nestjs/common';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import { routeAction } from '../metadata/route-actions.js';
import type { ModelRoutesRegistration } from './model-routes.explorer.js';

/** Where `@UseGuards()` (and the route options' `guards`) leave a handler's guards: `@nestjs/common`'s `GUARDS_METADATA`, not exported from its entry. */
const GUARDS_METADATA = '__guards__';

/**
 * The references through which a route answers (or searches) documents of another resource
 * without the guards of that resource's own `GET` of one document: declaring `expand`, `filter`
 * or `expandReverse` is an access decision (the target's guards are not run), so the start says
 * where the two differ, one line per reference. Guards the app applies to every route (`APP_GUARD`,
 * `useGlobalGuards`) guard both sides and are not seen here.
 */
export function relationAccessWarnings({ definitions, routes, controllers }: ModelRoutesRegistration): string[] {
  const guardsOf = (route: RouteDefinition): unknown[] => {
    const controller = controllers.get(route.controller);
    if (!controller) return [];
    const handler = (controller.prototype as Record<string, unknown>)[route.handler] as Type | undefined;
    return [...(Reflect.getMetadata(GUARDS_METADATA, controller) ?? []), ...((handler && Reflect.getMetadata(GUARDS_METADATA, handler)) ?? [])];
  };
  const readOne = (model: string) => routes.find((route) => route.action === 'findOne' && route.resource === model);
  const readers = (model: string) => routes.filter((route) => route.action !== 'custom' && routeAction(route.action).expand && route.resource === model);
  const warnings: string[] = [];
  const check = (source: string, target: string, through: string) => {
    const guarded = readOne(target);
    const required = guarded ? guardsOf(guarded) : [];
    if (required.length === 0) return;
    const missing = (route: RouteDefinition) => required.filter((guard) => !guardsOf(route).includes(guard));
    const open = readers(source).filter((route) => missing(route).length > 0);
    if (open.length === 0) return;
    const names = [...new Set(open.flatMap(missing))]
      .map((guard) => (typeof guard === 'function' ? guard.name : (guard as object).constructor.name))
      .join(', ');
    warnings.push(
      `${through} lets ${open.map((route) => `${route.method} ${route.path}`).join(', ')} answer ${target} documents without the guards of ` +
        `${guarded!.method} ${guarded!.path} (${names}): ` +
        'give those routes the same guards, or do not declare it (see docs/references.md#expanding-references).',
    );
  };
  for (const definition of definitions) {
    for (const reference of definition.references) {
      if (reference.expand || reference.filter)
        check(definition.name, reference.targetName, `${definition.name}.${reference.field} (${reference.expand ? 'expand' : 'filter'})`);
      if (reference.expandReverse)
        check(reference.targetName, definition.name, `${definition.name}.${reference.field} (expandReverse '${reference.expandReverse}')`);
    }
  }
  return warnings;
}
