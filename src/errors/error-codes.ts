/**
 * Every `code` a generated route can answer with. Stable: clients may switch on them.
 * Each one is documented in the README (a unit test checks it).
 */
export const ERROR_CODES = {
  MR_INVALID_ID: { status: 400, description: 'The identifier in the path cannot be an identifier of this model (e.g. not 24 hex characters).' },
  MR_INVALID_QUERY: { status: 400, description: 'The search parameters are malformed or not allowed: unknown field, operator outside the allowlist, bad limit/skip/sort/select.' },
  MR_INVALID_BODY: { status: 400, description: 'The request body is not an object, names an unknown field, or writes a field clients may not write (`_id`, `__v`, timestamps).' },
  MR_INVALID_VALUE: { status: 400, description: 'A value cannot be converted to the type of its field (e.g. "abc" for a number).' },
  MR_VALIDATION_FAILED: { status: 400, description: 'The schema validators refused the document; `details` has one entry per field.' },
  MR_UNSUPPORTED_QUERY: { status: 400, description: 'The database server does not implement a feature the query uses (MongoDB-compatible engines such as FerretDB lack a few).' },
  MR_INVALID_JSON: { status: 400, description: 'The request body is not valid JSON.' },
  MR_BAD_REQUEST: { status: 400, description: 'Any other malformed request (raised by a pipe or your own code).' },
  MR_UNAUTHORIZED: { status: 401, description: 'Authentication is required (raised by a guard).' },
  MR_FORBIDDEN: { status: 403, description: 'A guard refused the request.' },
  MR_NOT_FOUND: { status: 404, description: 'No document has this identifier.' },
  MR_ROUTE_NOT_FOUND: { status: 404, description: 'No route has this method and path.' },
  MR_REFERENCE_UNSET: { status: 404, description: 'The document exists but its reference field is empty.' },
  MR_REFERENCE_BROKEN: { status: 404, description: 'The reference field points to a document that no longer exists.' },
  MR_DUPLICATE_KEY: { status: 409, description: 'A unique index refused the value; `details` names the field(s) when the database reports them.' },
  MR_PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is larger than the configured limit.' },
  MR_HTTP_ERROR: { status: 0, description: 'Another HTTP error raised by user code (guard, pipe, interceptor); `statusCode` tells which.' },
  MR_INTERNAL: { status: 500, description: 'An unexpected failure; the real error is logged on the server, never sent.' },
  MR_DATABASE_UNAVAILABLE: { status: 503, description: 'The database cannot be reached or did not answer in time.' },
} as const satisfies Record<string, { status: number; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
