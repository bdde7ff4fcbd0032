import { UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ReferenceRoutesOptions, ResourceRoutesOptions, RouteOptions } from '../interfaces/route-options.interface.js';
import { actionsOf, type RouteActionName } from '../metadata/route-actions.js';

/** A route option, resolved: whether the route exists, and what decorates its handler. */
export interface ResolvedRoute {
  enabled: boolean;
  decorators: MethodDecorator[];
}

/** Keys of `ReferenceRoutesOptions` that are settings of the field, not routes. */
const REFERENCE_SETTINGS = ['checkExists'];

/** The options of one route, named as its action: the resource's (or the field's) if given, else `forRoot`'s. */
export function resolveRoute(
  action: RouteActionName,
  own: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
  defaults: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
): ResolvedRoute {
  const option = (own as Record<string, RouteOptions | undefined> | undefined)?.[action];
  const fallback = (defaults as Record<string, RouteOptions | undefined> | undefined)?.[action];
  return toResolved(option === undefined || option === true ? fallback : option);
}

function toResolved(option: RouteOptions | undefined): ResolvedRoute {
  if (option === undefined || option === true) return { enabled: true, decorators: [] };
  if (option === false) return { enabled: false, decorators: [] };
  return {
    enabled: option.enabled !== false,
    decorators: [
      ...(option.guards?.length ? [UseGuards(...option.guards)] : []),
      ...(option.interceptors?.length ? [UseInterceptors(...option.interceptors)] : []),
      ...(option.pipes?.length ? [UsePipes(...option.pipes)] : []),
      ...(option.decorators ?? []),
    ],
  };
}

/** Refuses, at startup, a route option that names no route of its kind. */
export function assertRouteNames(
  options: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
  kind: 'resource' | 'reference',
  where: string,
): void {
  const known: readonly string[] = actionsOf(kind);
  for (const [name, value] of Object.entries(options ?? {})) {
    if (kind === 'reference' && REFERENCE_SETTINGS.includes(name)) {
      if (value !== undefined && typeof value !== 'boolean') {
        throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${name} must be true or false.`);
      }
      continue;
    }
    if (!known.includes(name)) {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_UNKNOWN_ROUTE',
        `${where}: there is no route '${name}'. The ${kind} routes are ${known.join(', ')}.`,
      );
    }
  }
}
