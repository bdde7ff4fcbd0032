import { UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { RouteAction } from '../interfaces/route-definition.interface.js';
import {
  REFERENCE_ROUTE_NAMES,
  REFERENCE_SETTING_NAMES,
  RESOURCE_ROUTE_NAMES,
  type ReferenceRoutesOptions,
  type ResourceRoutesOptions,
  type RouteOptions,
} from '../interfaces/route-options.interface.js';

/** A route option, resolved: whether the route exists, and what decorates its handler. */
export interface ResolvedRoute {
  enabled: boolean;
  decorators: MethodDecorator[];
}

const OPTION_OF_ACTION: Record<Exclude<RouteAction, 'custom'>, string> = {
  findOne: 'get',
  create: 'create',
  update: 'update',
  patch: 'update',
  delete: 'delete',
  search: 'search',
  searchPost: 'search',
  referenceFind: 'forward',
  referenceSearch: 'reverse',
  referenceSearchPost: 'reverse',
  referenceList: 'forward',
  referenceAdd: 'relationship',
  referenceRemove: 'relationship',
};

/** The options of one route: the resource's (or the field's) if given, else `forRoot`'s. */
export function resolveRoute(
  action: Exclude<RouteAction, 'custom'>,
  own: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
  defaults: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
): ResolvedRoute {
  const name = OPTION_OF_ACTION[action] as keyof (ResourceRoutesOptions & ReferenceRoutesOptions);
  const fallback = toResolved((defaults as Record<string, RouteOptions | undefined> | undefined)?.[name]);
  const option = (own as Record<string, RouteOptions | undefined> | undefined)?.[name];
  return option === undefined || option === true ? fallback : toResolved(option);
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

/** Refuses a route option that names no route, at startup. */
export function assertRouteNames(
  options: ResourceRoutesOptions | ReferenceRoutesOptions | undefined,
  kind: 'resource' | 'reference',
  where: string,
): void {
  const known: readonly string[] = kind === 'resource' ? RESOURCE_ROUTE_NAMES : REFERENCE_ROUTE_NAMES;
  for (const [name, value] of Object.entries(options ?? {})) {
    if (kind === 'reference' && (REFERENCE_SETTING_NAMES as readonly string[]).includes(name)) {
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
