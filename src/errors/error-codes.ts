/**
 * Every `code` a generated route can answer with, one per cause. Stable: clients may switch on them.
 * Each one is documented in the README (a unit test checks it).
 *
 * `details[].path` follows one convention everywhere: the dotted path of the offending value in the
 * request's JSON input, array positions included. For a create or update body, from the body's root
 * (`meta.views`, `items.0.qty`); for a search, from the root of the search body (`query.status`,
 * `query.$or.0.employees.$gte`, `sort.meta`, `limit`), a GET search naming the same paths as its POST
 * equivalent; for a path parameter, the field it is matched against (`_id`, `slug`).
 */
export const ERROR_CODES = Object.freeze({
  MR_INVALID_ID: { status: 400, description: 'The identifier in the path cannot name a document of this model (not 24 hex characters for an `_id`, longer than 256 characters, or not of the type of the `id` field).' },
  MR_INVALID_QUERY: { status: 400, description: 'The search parameters are malformed or not allowed: unknown or hidden field, operator outside the allowlist, a regular expression that is too long or too costly, a parameter given twice, bad limit/skip/sort/select.' },
  MR_INVALID_VALUE: { status: 400, description: 'A value of a search cannot be compared with its field: it cannot be converted to the field\'s type, is not one of an `enum` field\'s values, or the database refuses it (an invalid regular expression).' },
  MR_INVALID_BODY: { status: 400, description: 'The request body is not a JSON object, or names a field a client may not write: unknown or hidden, `_id`, `__v`, timestamps, `readonly`; or a key that is not allowed (`$set`, `a.b`, `__proto__`, `_bsontype`).' },
  MR_VALIDATION_FAILED: { status: 400, description: 'A value of the body is refused by its field: wrong type (it cannot be converted), an object expected, a schema validator (`required`, `min`, `enum`, `match`...), or a validation pipe. `details` has one entry per failure.' },
  MR_REFERENCE_NOT_FOUND: { status: 400, description: 'A reference written in the body names no document of the referenced model; `details[].path` names the field (`tags.1` in an array).' },
  MR_UNSUPPORTED_QUERY: { status: 400, description: 'The database server does not implement a feature the query uses (MongoDB-compatible engines such as FerretDB lack a few).' },
  MR_INVALID_FILE: { status: 400, description: 'An upload holds no file: an empty file, a multipart body without a file part or with more than one, or a malformed multipart body.' },
  MR_INVALID_JSON: { status: 400, description: 'The request body is not valid JSON.' },
  MR_BAD_REQUEST: { status: 400, description: 'Any other malformed request (raised by a pipe or your own code).' },
  MR_UNAUTHORIZED: { status: 401, description: 'Authentication is required (raised by a guard).' },
  MR_FORBIDDEN: { status: 403, description: 'A guard refused the request.' },
  MR_NOT_FOUND: { status: 404, description: 'No document has this identifier (on a reverse reference route: no referenced document has it).' },
  MR_ROUTE_NOT_FOUND: { status: 404, description: 'No route has this path.' },
  MR_REFERENCE_UNSET: { status: 404, description: 'The document exists but its reference field is empty.' },
  MR_REFERENCE_BROKEN: { status: 404, description: 'The reference field points to a document that no longer exists.' },
  MR_FILE_NOT_FOUND: { status: 404, description: 'The document exists but has no such file: its file field is empty, or its gallery holds no file with this `:file_id`.' },
  MR_METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but does not serve this method; the `Allow` header lists those it serves.' },
  MR_DUPLICATE_KEY: { status: 409, description: 'A unique index refused the value; `details` names the field(s).' },
  MR_REFERENCED: { status: 409, description: 'The document cannot be deleted: reference fields declared `onDelete: \'restrict\'` still name it. `details` has one entry per field (`Company.owner`) with its count; nothing was deleted. Remove or change those references, then delete again.' },
  MR_PRECONDITION_FAILED: { status: 412, description: 'The document changed since the `ETag` sent in `If-Match` was read (or the tag names another document): nothing was written. The response\'s `ETag` is the current one; read the document again and retry.' },
  MR_REQUEST_TIMEOUT: { status: 408, description: 'An upload\'s body stopped arriving: no bytes for longer than its field\'s `bodyTimeout` (default 30 s). Nothing is stored, and the connection is closed.' },
  MR_PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is larger than the configured limit; for an upload, the file is larger than its field\'s `maxSize` (answered as soon as it is known, before the rest is read, and the connection closed).' },
  MR_UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request has a body that is not JSON (`Content-Type` other than `application/json`) on a route that takes JSON; or an uploaded file whose content (read from its first bytes, whatever its `Content-Type` says) is of a type its field does not accept.' },
  MR_RANGE_NOT_SATISFIABLE: { status: 416, description: 'The `Range` of a download starts past the end of the file; `Content-Range` gives its size.' },
  MR_QUERY_TIMEOUT: { status: 422, description: 'The database gave up on the query after `maxTimeMS` (default 5000 ms): narrow the query.' },
  MR_PRECONDITION_REQUIRED: { status: 428, description: 'The resource requires `If-Match` on its writes (`requireIfMatch`), and the request has none: read the document, then send its `ETag`.' },
  MR_HTTP_ERROR: { status: 0, description: 'Another HTTP error raised by user code (guard, pipe, interceptor); `statusCode` tells which.' },
  MR_INTERNAL: { status: 500, description: 'An unexpected failure; the real error is logged on the server, never sent.' },
  MR_DATABASE_UNAVAILABLE: { status: 503, description: 'The database cannot be reached or did not answer in time.' },
} as const satisfies Record<string, { status: number; description: string }>);
for (const entry of Object.values(ERROR_CODES)) Object.freeze(entry);

export type ErrorCode = keyof typeof ERROR_CODES;
