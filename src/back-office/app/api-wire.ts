/**
 * The wire as the app sees it, without the DOM: the URLs of the generated routes, the search
 * envelope, the library's error shape and what a failure says to the user. A pure module, unit-tested
 * without a browser (test/unit/back-office/app/); `api.ts` does the fetching.
 */

/** `/company/<id>` under the app's prefix (`apiBase`: `''` or e.g. `/api`), each segment encoded. */
export function apiUrl(apiBase: string, segments: readonly string[]): string {
  return `${apiBase}/${segments.map(encodeURIComponent).join('/')}`;
}

/** A document as the routes answer it. */
export type Doc = Record<string, unknown>;

/** The envelope of every search route. */
export interface Envelope<T = Record<string, unknown>> {
  status: {
    count: number;
    search_count: number;
    match_count?: number;
    counted: 'exact' | 'estimated' | 'none';
    limit: number;
    skip: number;
    next?: string;
    missing?: string[];
  };
  result: T[];
}

/** A document, and the `ETag` that came with it (sent back as `If-Match`). */
export interface Tagged<T = Record<string, unknown>> {
  body: T;
  etag?: string;
}

/** One detail of the library's error shape: the field path it names and what is wrong. */
export interface ErrorDetail {
  path?: string;
  message: string;
}

/** What the app reads of a failed answer: the library's error shape (`{ statusCode, error, code, message, details }`), or Nest's own (`message` a list). */
export interface ErrorShape {
  code?: string;
  message?: string | string[];
  details?: ErrorDetail[];
}

/** A failed request, in the library's error shape (`{ statusCode, code, message, details }`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }

  /** A request that never got an answer (server down, network). */
  static unreachable(error: unknown): ApiError {
    return new ApiError(0, 'NETWORK', `The server could not be reached (${(error as Error).message}).`);
  }
}

/** The `ApiError` of a failed answer: the library's error shape when it is one, else the status alone (a proxy's page). */
export async function errorOf(response: Response): Promise<ApiError> {
  return errorOfText(response.status, response.statusText, await response.text().catch(() => ''));
}

/** The `ApiError` of a failed answer read as text (an `XMLHttpRequest`'s): as `errorOf`. */
export function errorOfText(status: number, statusText: string, text: string): ApiError {
  let body: ErrorShape = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    // Not the library's shape (a proxy's page): the status says enough.
  }
  const message = Array.isArray(body.message) ? body.message.join('; ') : body.message;
  return new ApiError(status, body.code ?? `HTTP_${status}`, message ?? statusText, Array.isArray(body.details) ? body.details : []);
}

/** A failure in words: 401 and 403 say what to do; others give the server's message. */
export function describeError(error: unknown, doing: string, header: string): { title: string; text: string } {
  if (!(error instanceof ApiError)) return { title: `Could not ${doing}`, text: (error as Error)?.message ?? String(error) };
  const said = error.message ? ` The server said: “${error.message}”` : '';
  switch (error.status) {
    case 0:
      return { title: `Could not ${doing}`, text: error.message };
    case 401:
      return {
        title: `Not signed in: could not ${doing}`,
        text: `This action needs credentials (401).${said} Enter them (sent in the ${header} header) and try again.`,
      };
    case 403:
      return { title: `Not allowed: could not ${doing}`, text: `Your credentials do not allow this action (403).${said}` };
    case 404:
      return { title: 'Not found', text: `${error.message || 'It does not exist'} (404).` };
    case 409:
      return { title: `Could not ${doing}`, text: [error.message, ...error.details.map((detail) => detail.message)].filter(Boolean).join(' · ') };
    default:
      return { title: `Could not ${doing}`, text: `${error.message} (${error.status} ${error.code}).` };
  }
}
