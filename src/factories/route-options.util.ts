import { UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { FileRoutesOptions, ReadPreferenceMode, ReferenceRoutesOptions, ResourceRoutesOptions, RouteOptions } from '../interfaces/route-options.interface.js';
import { actionsOf, routeAction, type RouteActionName } from '../metadata/route-actions.js';

/** A route option, resolved: whether the route exists, what decorates its handler, where it reads. */
export interface ResolvedRoute {
  enabled: boolean;
  decorators: MethodDecorator[];
  readPreference?: ReadPreferenceMode;
}

const READ_PREFERENCES: readonly ReadPreferenceMode[] = ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'];

/** Keys of `ReferenceRoutesOptions` that are settings of the field, not routes. */
const REFERENCE_SETTINGS = ['checkExists'];

/** The options of one route, named as its action: the resource's (or the field's) if given, else `forRoot`'s. */
export function resolveRoute(
  action: RouteActionName,
  own: ResourceRoutesOptions | ReferenceRoutesOptions | FileRoutesOptions | undefined,
  defaults: ResourceRoutesOptions | ReferenceRoutesOptions | FileRoutesOptions | undefined,
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
    ...(option.readPreference && { readPreference: option.readPreference }),
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
  options: ResourceRoutesOptions | ReferenceRoutesOptions | FileRoutesOptions | undefined,
  kind: 'resource' | 'reference' | 'file',
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
    assertReadPreference(name as RouteActionName, value as RouteOptions, where);
  }
}

/** A `readPreference` is one of MongoDB's modes, on a route that only reads. */
function assertReadPreference(action: RouteActionName, option: RouteOptions, where: string): void {
  const mode = typeof option === 'object' ? option.readPreference : undefined;
  if (mode === undefined) return;
  if (!READ_PREFERENCES.includes(mode)) {
    throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${action}.readPreference must be one of ${READ_PREFERENCES.join(', ')}.`);
  }
  const row = routeAction(action);
  if (row.method !== 'GET' && row.body !== 'search') {
    throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${action} writes; only the routes that read take a readPreference (writes go to the primary).`);
  }
}
