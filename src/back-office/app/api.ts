import { ApiError, apiUrl, errorOf, type Envelope, type Tagged } from './api-wire.js';
import type { BackOfficeMetadata, ResourceMetadata } from './metadata.js';
import { ROUTES, type AppAction, type RouteAt } from './routes.js';
import { routeRequest } from './routing.js';

export { ApiError, type Envelope, type ErrorDetail, type Tagged } from './api-wire.js';

/** How credentials are sent, as the page says (`<meta name="model-routes-auth-header">`): before the metadata, whose route may be guarded. */
export function authOfPage(): BackOfficeMetadata['auth'] {
  const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="model-routes-auth-${name}"]`)?.content || undefined;
  return { header: meta('header') ?? 'authorization', scheme: meta('scheme') };
}

interface RequestOptions {
  query?: URLSearchParams;
  body?: unknown;
  ifMatch?: string;
  /** The `Prefer` header (a search's `count=exact`). */
  prefer?: string;
}

/** What the app's searches ask of the count: exact, for its page numbers, whatever the resource's default. */
export const SEARCH_PREFER = 'count=exact';

const CREDENTIAL_KEY = 'model-routes-back-office:credential';

/**
 * The generated routes, called with `fetch`: the app's only way to the data. Sends the session's
 * credential (if any) in the header the back office was configured with.
 */
export class Api {
  constructor(private readonly metadata: Pick<BackOfficeMetadata, 'apiBase' | 'auth' | 'routes'>) {}

  /** The credential entered for this browser tab, kept until the tab closes. */
  get credential(): string {
    return sessionStorage.getItem(CREDENTIAL_KEY) ?? '';
  }

  set credential(value: string) {
    if (value) sessionStorage.setItem(CREDENTIAL_KEY, value);
    else sessionStorage.removeItem(CREDENTIAL_KEY);
  }

  /** `/company/<id>` under the app's prefix, each segment encoded. */
  url(...segments: string[]): string {
    return apiUrl(this.metadata.apiBase, segments);
  }

  /** The URL of the generated route `action` (see `ROUTES`). */
  routeUrl(action: AppAction, at: RouteAt): string {
    return this.url(...ROUTES[action].segments(at));
  }

  /** A JSON request to the generated route `action`, with the method the route table gives it. */
  call<T = Record<string, unknown>>(action: AppAction, at: RouteAt, options: RequestOptions = {}): Promise<Tagged<T>> {
    return this.json<T>(ROUTES[action].method, this.routeUrl(action, at), options);
  }

  /** The document at `/<path>/<id>` (`findOne`). */
  one(resource: ResourceMetadata, id: string): Promise<Tagged> {
    return this.call('findOne', { resource, id });
  }

  /** A search route's envelope (`GET` with the query string). */
  async search(url: string, query: URLSearchParams): Promise<Envelope> {
    return (await this.json<Envelope>('GET', url, { query, prefer: SEARCH_PREFER })).body;
  }

  /** A JSON request; answers its body and `ETag`, or throws an `ApiError`. */
  async json<T = Record<string, unknown>>(method: string, url: string, options: RequestOptions = {}): Promise<Tagged<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const body = encoded(options.body, headers);
    if (options.prefer) headers.prefer = options.prefer;
    const response = await this.send(method, url, { headers, body, ifMatch: options.ifMatch, query: options.query });
    const text = await response.text();
    return { body: (text ? JSON.parse(text) : undefined) as T, etag: response.headers.get('etag') ?? undefined };
  }

  /** A file's bytes (`download`), as a blob for an object URL: fetched so that guarded downloads get the credential. */
  async blob(url: string, query?: URLSearchParams): Promise<Blob> {
    return (await this.send('GET', url, { headers: {}, query })).blob();
  }

  /**
   * The answer of the generated route `action` as bytes (a list's export), with the method the
   * route table gives it and a JSON body if any: fetched, not opened as a link, so that guarded
   * routes get the credential and a refusal comes back in the error shape. The whole answer is
   * read: a transfer cut short fails (an `Error`, not an `ApiError`).
   */
  async bytes(action: AppAction, at: RouteAt, options: Pick<RequestOptions, 'query' | 'body'> = {}): Promise<Blob> {
    const headers: Record<string, string> = {};
    const body = encoded(options.body, headers);
    return (await this.send(ROUTES[action].method, this.routeUrl(action, at), { headers, body, query: options.query })).blob();
  }

  private async send(method: string, url: string, options: { headers: Record<string, string>; body?: BodyInit; ifMatch?: string; query?: URLSearchParams }): Promise<Response> {
    // The route's version: in its URL (URI versioning) or in a header; and its prefix, unless excluded.
    const routed = routeRequest(this.metadata.routes, this.metadata.apiBase, method, url);
    const headers = { ...options.headers, ...routed.headers };
    if (options.ifMatch) headers['if-match'] = options.ifMatch;
    const credential = this.credential;
    if (credential) {
      const { header, scheme } = this.metadata.auth;
      headers[header] = scheme ? `${scheme} ${credential}` : credential;
    }
    const search = options.query?.toString();
    let response: Response;
    try {
      response = await fetch(search ? `${routed.url}?${search}` : routed.url, { method, headers, body: options.body, credentials: 'same-origin' });
    } catch (error) {
      throw ApiError.unreachable(error);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }
}

/** A request's body: a form as it is, anything else as JSON (its `content-type` set in `headers`). */
function encoded(body: unknown, headers: Record<string, string>): BodyInit | undefined {
  if (body instanceof FormData) return body;
  if (body === undefined) return undefined;
  headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}
