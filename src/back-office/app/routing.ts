import type { ServedRouteMetadata } from './metadata.js';

/** Where a request of the page goes: its URL, and the headers that name its route's version. */
export interface RoutedRequest {
  url: string;
  headers: Record<string, string>;
}

/**
 * Where the app serves the route that `method` and `path` (a path of the route table, under
 * `apiBase`: `/api/company/<id>`) reach, from the metadata's `routes`: under another base (a URI
 * version, `/api/v1`, or no prefix where `exclude` removes it) and with the header of its version
 * (header or media type versioning). A literal path wins over a `:param` one, as in the router.
 * Without `routes` (the app neither versions nor excludes), the URL is as given.
 */
export function routeRequest(routes: readonly ServedRouteMetadata[] | undefined, apiBase: string, method: string, url: string): RoutedRequest {
  if (!routes?.length || !url.startsWith(`${apiBase}/`)) return { url, headers: {} };
  const path = url.slice(apiBase.length);
  const segments = path.split('/');
  let best: { route: ServedRouteMetadata; shape: string } | undefined;
  for (const route of routes) {
    if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length || !pattern.every((part, index) => part.startsWith(':') || part === segments[index])) continue;
    const shape = pattern.map((part) => (part.startsWith(':') ? 'P' : 'L')).join('');
    if (!best || shape < best.shape) best = { route, shape };
  }
  if (!best) return { url, headers: {} };
  return { url: `${best.route.base}${path}`, headers: { ...best.route.headers } };
}
