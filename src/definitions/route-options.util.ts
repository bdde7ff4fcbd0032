import { UseGuards, UseInterceptors, UsePipes, VERSION_NEUTRAL } from '@nestjs/common';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type {
  ElementRoutesOptions,
  FileRoutesOptions,
  ReadPreferenceMode,
  ReferenceRoutesOptions,
  ResourceRoutesOptions,
  RouteOptions,
  RouteVersion,
} from '../interfaces/route-options.interface.js';
import { actionsOf, routeAction, type RouteActionName } from '../metadata/route-actions.js';

/** A route option, resolved: whether the route exists, what decorates its handler, where it reads. */
export interface ResolvedRoute {
  enabled: boolean;
  decorators: MethodDecorator[];
  readPreference?: ReadPreferenceMode;
  /** The route's own `version` option, if it gives one. */
  version?: RouteVersion;
}

const READ_PREFERENCES: readonly ReadPreferenceMode[] = ['primary', 'primaryPreferred', 'secondary', 'secondaryPreferred', 'nearest'];

type AnyRoutesOptions = ResourceRoutesOptions | ReferenceRoutesOptions | FileRoutesOptions | ElementRoutesOptions;

const BOOLEAN_SETTING = { valid: (value: unknown) => typeof value === 'boolean', expected: 'true or false' };

/** Keys of a field's route options that are settings of the field, not routes, and how each is checked. */
const FIELD_SETTINGS: Partial<Record<RouteScope, Record<string, { valid(value: unknown): boolean; expected: string }>>> = {
  reference: {
    checkExists: BOOLEAN_SETTING,
    expand: BOOLEAN_SETTING,
    filter: BOOLEAN_SETTING,
    expandReverse: { valid: (value) => typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(value), expected: 'a name of letters, digits and _' },
  },
  element: { maxElements: { valid: (value) => Number.isSafeInteger(value) && (value as number) >= 1, expected: 'an integer of at least 1' } },
};

type RouteScope = 'resource' | 'reference' | 'file' | 'element';

/** The options of one route, named as its action: the resource's (or the field's) if given, else `forRoot`'s. */
export function resolveRoute(action: RouteActionName, own: AnyRoutesOptions | undefined, defaults: AnyRoutesOptions | undefined): ResolvedRoute {
  const option = (own as Record<string, RouteOptions | undefined> | undefined)?.[action];
  const fallback = (defaults as Record<string, RouteOptions | undefined> | undefined)?.[action];
  // An opt-in route is on where either level names it (`true` or an object), off otherwise.
  if (routeAction(action).optIn && (option ?? fallback) === undefined) return { enabled: false, decorators: [] };
  return toResolved(option === undefined || option === true ? fallback : option);
}

function toResolved(option: RouteOptions | undefined): ResolvedRoute {
  if (option === undefined || option === true) return { enabled: true, decorators: [] };
  if (option === false) return { enabled: false, decorators: [] };
  return {
    enabled: option.enabled !== false,
    ...(option.readPreference && { readPreference: option.readPreference }),
    ...(option.version !== undefined && { version: option.version }),
    decorators: [
      ...(option.guards?.length ? [UseGuards(...option.guards)] : []),
      ...(option.interceptors?.length ? [UseInterceptors(...option.interceptors)] : []),
      ...(option.pipes?.length ? [UsePipes(...option.pipes)] : []),
      ...(option.decorators ?? []),
    ],
  };
}

/** Refuses, at startup, a route option that names no route of its kind. */
export function assertRouteNames(options: AnyRoutesOptions | undefined, kind: RouteScope, where: string): void {
  const known: readonly string[] = actionsOf(kind);
  for (const [name, value] of Object.entries(options ?? {})) {
    const setting = FIELD_SETTINGS[kind]?.[name];
    if (setting) {
      if (value !== undefined && !setting.valid(value)) {
        throw new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: ${name} must be ${setting.expected}.`);
      }
      continue;
    }
    if (!known.includes(name)) {
      throw new ModelRoutesConfigError('MR_CONFIG_UNKNOWN_ROUTE', `${where}: there is no route '${name}'. The ${kind} routes are ${known.join(', ')}.`);
    }
    assertReadPreference(name as RouteActionName, value as RouteOptions, where);
    if (typeof value === 'object' && value !== null && 'version' in value) assertVersion((value as { version?: unknown }).version, `${where}: ${name}.version`);
  }
}

/** A `version` is what Nest's `@Version()` takes: a non-empty string, `VERSION_NEUTRAL`, or a non-empty array of them. */
export function assertVersion(version: unknown, where: string): void {
  const one = (value: unknown) => (typeof value === 'string' && value.length > 0) || value === VERSION_NEUTRAL;
  if (version === undefined || one(version) || (Array.isArray(version) && version.length > 0 && version.every(one))) return;
  throw new ModelRoutesConfigError(
    'MR_CONFIG_INVALID_OPTION',
    `${where} must be a version as @Version() takes it: '1', VERSION_NEUTRAL, or a non-empty array of them (got ${String(version)}).`,
  );
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
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${where}: ${action} writes; only the routes that read take a readPreference (writes go to the primary).`,
    );
  }
}
