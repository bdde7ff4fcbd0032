/** The request's path, as `locationOf` reads it. */
export interface HttpRequest {
  originalUrl?: string;
  url?: string;
}

/**
 * `POST /api/company` → `/api/company/<id>`: built from the request's path, so global prefixes hold.
 * Always a path (a relative reference), never a URL: a request line in absolute form
 * (`POST http://evil.example/company`) names a host the client chose, which is left out, and a
 * path that starts with `//` would read as one, so it starts with a single `/`.
 */
export function locationOf(request: HttpRequest, id: unknown): string {
  const url = request.originalUrl ?? request.url ?? '';
  const query = url.indexOf('?');
  let end = query < 0 ? url.length : query;
  while (end > 0 && url.charCodeAt(end - 1) === 0x2f /* / */) end--;
  const path = url.slice(0, end).replace(ABSOLUTE_URL_START, '').replace(/^\/+/, '');
  return `/${path ? `${path}/` : ''}${encodeURIComponent(String(id))}`;
}

/** The scheme and authority of an absolute-form request target (RFC 9112 section 3.2.2). */
const ABSOLUTE_URL_START = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i;
