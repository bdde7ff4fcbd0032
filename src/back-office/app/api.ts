import { ApiError, apiUrl, errorOf, errorOfText, type Envelope, type Tagged } from './api-wire.js';
import type { BackOfficeMetadata, ResourceMetadata } from './metadata.js';
import { ROUTES, type AppAction, type RouteAt } from './routes.js';
import { routeRequest } from './routing.js';

export { ApiError, type Envelope, type ErrorDetail, type Tagged } from './api-wire.js';

/** How credentials are sent, as the page says (`<meta name="model-routes-auth-header">`): before the metadata, whose route may be guarded. */
export function authOfPage(): BackOfficeMetadata['auth'] {
  const meta = (name: string) => document.querySelector<HTMLMetaElement>(`meta[name="model-routes-auth-${name}"]`)?.content || undefined;
  return { header: meta('header') ?? 'authorization', scheme: meta('scheme') };
}

/** How far an upload is: its bytes sent (`total` when the browser knows it), then the wait for the server's answer. */
export type UploadProgress = { phase: 'sending'; loaded: number; total?: number } | { phase: 'waiting' };

/** A file sent as the body of a route (`import`), with the progress of its upload. */
export interface UploadOptions {
  query?: URLSearchParams;
  body: Blob;
  /** The body's `Content-Type`. */
  contentType: string;
  onProgress?: (progress: UploadProgress) => void;
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

  /**
   * A file sent to the generated route `action` (an import), answered as JSON: sent with an
   * `XMLHttpRequest`, the one way a page learns how many bytes of a body went (`upload.onprogress`,
   * where the browser reports it), with the credential and the route's version as every request.
   * `onProgress` hears the bytes sent, then `waiting` while the server reads and answers.
   */
  upload<T = Record<string, unknown>>(action: AppAction, at: RouteAt, options: UploadOptions): Promise<T> {
    const method = ROUTES[action].method;
    const { url, headers } = this.prepare(
      method,
      this.routeUrl(action, at),
      { accept: 'application/json', 'content-type': options.contentType },
      options.query,
    );
    const { onProgress } = options;
    return new Promise<T>((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open(method, url);
      for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
      if (onProgress) {
        request.upload.addEventListener('progress', (event) =>
          onProgress({ phase: 'sending', loaded: event.loaded, total: event.lengthComputable ? event.total : undefined }),
        );
        request.upload.addEventListener('load', () => onProgress({ phase: 'waiting' }));
      }
      request.addEventListener('load', () => {
        if (request.status < 200 || request.status >= 300) return reject(errorOfText(request.status, request.statusText, request.responseText));
        try {
          resolve((request.responseText ? JSON.parse(request.responseText) : undefined) as T);
        } catch (error) {
          reject(error);
        }
      });
      // No answer: the server went away, or closed the connection before reading the whole body.
      for (const kind of ['error', 'abort', 'timeout'] as const)
        request.addEventListener(kind, () => reject(ApiError.unreachable(new Error(`the upload ended without an answer (${kind})`))));
      request.send(options.body);
    });
  }

  private async send(
    method: string,
    url: string,
    options: { headers: Record<string, string>; body?: BodyInit; ifMatch?: string; query?: URLSearchParams },
  ): Promise<Response> {
    const prepared = this.prepare(method, url, options.ifMatch ? { ...options.headers, 'if-match': options.ifMatch } : options.headers, options.query);
    let response: Response;
    try {
      response = await fetch(prepared.url, { method, headers: prepared.headers, body: options.body, credentials: 'same-origin' });
    } catch (error) {
      throw ApiError.unreachable(error);
    }
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  /** Where a request goes and its headers: the route's version (in its URL, or a header), its prefix unless excluded, the credential. */
  private prepare(method: string, url: string, given: Record<string, string>, query?: URLSearchParams): { url: string; headers: Record<string, string> } {
    const routed = routeRequest(this.metadata.routes, this.metadata.apiBase, method, url);
    const headers = { ...given, ...routed.headers };
    const credential = this.credential;
    if (credential) {
      const { header, scheme } = this.metadata.auth;
      headers[header] = scheme ? `${scheme} ${credential}` : credential;
    }
    const search = query?.toString();
    return { url: search ? `${routed.url}?${search}` : routed.url, headers };
  }
}

/** A request's body: a form as it is, anything else as JSON (its `content-type` set in `headers`). */
function encoded(body: unknown, headers: Record<string, string>): BodyInit | undefined {
  if (body instanceof FormData) return body;
  if (body === undefined) return undefined;
  headers['content-type'] = 'application/json';
  return JSON.stringify(body);
}
