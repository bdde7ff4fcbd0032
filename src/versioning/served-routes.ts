import { RequestMethod, VERSION_NEUTRAL, VersioningType, type VersioningOptions } from '@nestjs/common';
import type { ApplicationConfig } from '@nestjs/core';
import type { RouteDefinition } from '../interfaces/route-definition.interface.js';
import type { RouteVersion } from '../interfaces/route-options.interface.js';

/** A global prefix exclusion, as `app.setGlobalPrefix(prefix, { exclude })` leaves it in the app's config. */
interface PrefixExclusion {
  pathRegex: RegExp;
  requestMethod: RequestMethod;
}

/** How the app serves routes: its global prefix (and what it excludes) and its versioning. */
export interface Serving {
  /** `'/api'`, or `''` without a global prefix. */
  prefix: string;
  exclude: readonly PrefixExclusion[];
  /** `app.enableVersioning(options)`; absent when the app does not version its routes. */
  versioning?: VersioningOptions;
}

/** The route of the table that a URL and method reach, as the app serves it. */
export interface ServedRoute<R> {
  route: R;
  /** The path as served: global prefix (unless excluded), then the URI version (`/api/v1/company/:company_id`). */
  path: string;
  /**
   * With header, media type or custom versioning, the versions the route answers (`VERSION_NEUTRAL`
   * among them: any, and none); absent when it answers every request of its path.
   */
  versions?: ReadonlyArray<string | typeof VERSION_NEUTRAL>;
  /** The version a client names to reach it: in its path (URI), or in the header or media type; absent when it needs none. */
  version?: string;
}

/** How `config` (the app's, read once it has started) serves routes. */
export function servingOf(config: Pick<ApplicationConfig, 'getGlobalPrefix' | 'getGlobalPrefixOptions' | 'getVersioning'> | undefined): Serving {
  const trimmed = (config?.getGlobalPrefix() ?? '').replace(/^\/+|\/+$/g, '');
  const versioning = config?.getVersioning();
  return {
    prefix: trimmed ? `/${trimmed}` : '',
    exclude: (config?.getGlobalPrefixOptions().exclude ?? []) as PrefixExclusion[],
    ...(versioning && { versioning }),
  };
}

/** The version(s) a route answers in this app: its own, else the app's `defaultVersion`; none without versioning. */
export function versionsOf(version: RouteVersion | undefined, serving: Serving): Array<string | typeof VERSION_NEUTRAL> | undefined {
  if (!serving.versioning) return undefined;
  const value = version ?? serving.versioning.defaultVersion;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/**
 * Where each route is served, as Nest's router places it: under the global prefix unless an
 * `exclude` names its path and method, and under `/<prefix><version>` for each of its versions
 * with URI versioning (`VERSION_NEUTRAL`: the path without a version). With the other versioning
 * types a route keeps one path, and answers only the versions it serves.
 */
export function servedRoutes<R extends Pick<RouteDefinition, 'method' | 'path' | 'version'>>(routes: readonly R[], serving: Serving): ServedRoute<R>[] {
  return routes.flatMap((route): ServedRoute<R>[] => {
    const base = isExcluded(route, serving) ? route.path : `${serving.prefix}${route.path}`;
    const versions = versionsOf(route.version, serving);
    if (!versions) return [{ route, path: base }];
    if (serving.versioning!.type !== VersioningType.URI) {
      const named = versions.find((version): version is string => version !== VERSION_NEUTRAL);
      return [{ route, path: base, versions, ...(named !== undefined && !versions.includes(VERSION_NEUTRAL) && { version: named }) }];
    }
    const segment = uriVersionPrefix(serving.versioning!);
    return versions.map((version) => {
      if (version === VERSION_NEUTRAL) return { route, path: base };
      const path = isExcluded(route, serving) ? `/${segment}${version}${route.path}` : `${serving.prefix}/${segment}${version}${route.path}`;
      return { route, path, version };
    });
  });
}

/** `v`, or the `prefix` of URI versioning (`false`: none). */
function uriVersionPrefix(versioning: VersioningOptions): string {
  if (versioning.type !== VersioningType.URI) return 'v';
  return versioning.prefix === false ? '' : (versioning.prefix ?? 'v');
}

function isExcluded(route: Pick<RouteDefinition, 'method' | 'path'>, serving: Serving): boolean {
  if (!serving.prefix) return false;
  const method = RequestMethod[route.method];
  return serving.exclude.some(
    (exclusion) => (exclusion.requestMethod === RequestMethod.ALL || exclusion.requestMethod === method) && exclusion.pathRegex.test(route.path),
  );
}

interface RequestLike {
  headers?: Record<string, string | string[] | undefined>;
}

/**
 * The version a request names, as Nest's router reads it: the versioning's header, the `key`
 * parameter of `Accept` (`application/json;v=2`), or what the custom extractor answers;
 * `undefined` when it names none, or with URI versioning (the path says it).
 */
export function requestedVersion(request: RequestLike, versioning: VersioningOptions | undefined): string | readonly string[] | undefined {
  if (!versioning) return undefined;
  const headers = request.headers ?? {};
  switch (versioning.type) {
    case VersioningType.HEADER:
      return first(headers[versioning.header.toLowerCase()]);
    case VersioningType.MEDIA_TYPE:
      return mediaTypeVersion(first(headers.accept), versioning.key);
    case VersioningType.CUSTOM:
      try {
        return versioning.extractor(request);
      } catch {
        return undefined;
      }
    default:
      return undefined;
  }
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The value of the first media-range parameter that starts with `key` (`v=`), unquoted. */
function mediaTypeVersion(accept: string | undefined, key: string): string | undefined {
  for (const range of (accept ?? '').split(',')) {
    for (const parameter of range.split(';').slice(1)) {
      const trimmed = parameter.trim();
      if (trimmed.startsWith(key)) return trimmed.slice(key.length).replace(/^"(.*)"$/, '$1');
    }
  }
  return undefined;
}

/** Whether a route of these `versions` answers a request naming `requested` (Nest's version filter). */
export function answersVersion(versions: ServedRoute<unknown>['versions'], requested: string | readonly string[] | undefined): boolean {
  if (!versions || (versions.length === 1 && versions[0] === VERSION_NEUTRAL)) return true;
  if (requested === undefined) return versions.includes(VERSION_NEUTRAL);
  const asked = typeof requested === 'string' ? [requested] : requested;
  return versions.some((version) => asked.includes(version as string));
}
