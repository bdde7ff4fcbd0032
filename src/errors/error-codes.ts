/**
 * Every `code` a generated route can answer with, one per cause. Stable: clients may switch on them.
 * Each one is documented in docs/errors.md (a unit test checks it).
 *
 * `details[].path` follows one convention everywhere: the dotted path of the offending value in the
 * request's JSON input, array positions included. For a create or update body, from the body's root
 * (`meta.views`, `items.0.qty`); for a search, from the root of the search body (`query.status`,
 * `query.$or.0.employees.$gte`, `sort.meta`, `limit`), a GET search naming the same paths as its POST
 * equivalent; for a path parameter, the field it is matched against (`_id`, `slug`).
 *
 * @publicApi
 */
export const ERROR_CODES = Object.freeze({
  MR_INVALID_ID: {
    status: 400,
    description:
      'The identifier in the path cannot name a document of this model (not 24 hex characters for an `_id`, longer than 256 characters, holding a NUL ' +
      'character, or not of the type of the `id` field).',
  },
  MR_INVALID_QUERY: {
    status: 400,
    description:
      'The search parameters are malformed or not allowed: unknown or hidden field, operator outside the allowlist, a regular expression that is too long ' +
      'or too costly, a parameter given twice, bad limit/skip/sort/select, `after` with `skip`.',
  },
  MR_INVALID_VALUE: {
    status: 400,
    description:
      "A value of a search cannot be compared with its field: it cannot be converted to the field's type, is not one of an `enum` field's values, holds a " +
      'NUL character (U+0000), or the database refuses it (an invalid regular expression).',
  },
  MR_INVALID_CURSOR: {
    status: 400,
    description:
      'The `after` of a search is not a cursor this search gave (`status.next`): it was altered, or belongs to another resource, route (another parent of ' +
      'a reverse route), sort or filter, or the search has no sort; or one of its values holds a NUL character (U+0000), as in every client string. ' +
      '`details[].path` is `after`. Send the search of the page that gave the cursor, or start again from the first page.',
  },
  MR_INVALID_BODY: {
    status: 400,
    description:
      'The request body is not a JSON object, or names a field a client may not write: unknown or hidden, `_id`, `__v`, timestamps, `readonly`; or a key ' +
      'that is not allowed (`$set`, `a.b`, `__proto__`, `_bsontype`).',
  },
  MR_VALIDATION_FAILED: {
    status: 400,
    description:
      'A value of the body is refused by its field: wrong type (it cannot be converted), an object expected, a string holding a NUL character (U+0000), a ' +
      'schema validator (`required`, `min`, `enum`, `match`...), or a validation pipe. `details` has one entry per failure.',
  },
  MR_REFERENCE_NOT_FOUND: {
    status: 400,
    description: 'A reference written in the body names no document of the referenced model; `details[].path` names the field (`tags.1` in an array).',
  },
  MR_REFERENCE_CYCLE: {
    status: 400,
    description:
      'A write to a self-reference declared `acyclic` would close a cycle (a category as its own ancestor), or leads to a chain longer than ' +
      '`acyclic.maxDepth`; `details[].path` names the field, the message the chain. Nothing was written.',
  },
  MR_UNSUPPORTED_QUERY: {
    status: 400,
    description:
      'The database server does not implement a feature the query uses, or would answer it wrongly (MongoDB-compatible engines such as FerretDB lack a ' +
      'few: see [Searching](searching-and-security.md#searching)); `details` names the place when the library knows it (`query.lines.$elemMatch`).',
  },
  MR_RELATION_FILTER_TOO_BROAD: {
    status: 400,
    description:
      'A condition on a referenced field (`owner.niceName`) matches more referenced documents than `search.maxRelationIds` (default 1000) allows; ' +
      '`details[].path` names it. Nothing was cut: narrow the condition.',
  },
  MR_EXPAND_TOO_BROAD: {
    status: 400,
    description:
      'An expanded reverse path (`?expand=companies`, declared with `expandReverse`) would read more documents for one answer than `search.maxRelationIds` ' +
      '(default 1000) allows; `details[].path` names it. Nothing was cut: ask for fewer documents, or page through the reverse route.',
  },
  MR_EXPORT_TOO_LARGE: {
    status: 400,
    description:
      'An export without `limit` matches more documents than `search.exportMaxRows` (default 100000) allows. Known before the first byte when the bound is ' +
      'within the first page (500 documents); past it, the transfer is aborted, so a client never takes a cut file for a whole one. Narrow the ' +
      'filter, or send a `limit` to export the first ones.',
  },
  MR_BULK_TOO_LARGE: {
    status: 400,
    description:
      'A bulk change (`PATCH /<plural>`, `DELETE /<plural>`) whose filter matches more documents than `search.bulkMaxDocuments` (default 1000) allows; the ' +
      'message says how many it matches, `details[0].path` is `query`. Refused whole: nothing was written. Narrow the filter, or change them in ' +
      'several requests.',
  },
  MR_INVALID_IMPORT: {
    status: 400,
    description:
      "An import's file cannot be read: a malformed CSV record (an unbalanced quote, a record with more or fewer cells than the header, a header naming a " +
      'column twice or none), an NDJSON line that is not JSON (a truncated last line), a JSON body that is not an array, or an XLSX file that is not ' +
      "one (a truncated zip, other bytes, no worksheet) or whose first sheet holds a formula, an error value or a cell beyond the header's columns. " +
      '`details[].path` is the row at fault, if one is (1-based, the header not counted; 0 is the header). The whole file is refused: nothing was ' +
      'written.',
  },
  MR_INVALID_FILE: {
    status: 400,
    description: 'An upload holds no file: an empty file, a multipart body without a file part or with more than one, or a malformed multipart body.',
  },
  MR_INVALID_JSON: { status: 400, description: 'The request body is not valid JSON.' },
  MR_BAD_REQUEST: { status: 400, description: 'Any other malformed request (raised by a pipe or your own code).' },
  MR_UNAUTHORIZED: { status: 401, description: 'Authentication is required (raised by a guard).' },
  MR_FORBIDDEN: { status: 403, description: 'A guard refused the request.' },
  MR_OUT_OF_SCOPE: {
    status: 403,
    description:
      "A write the request's row scope (`@GeneratedResource({ scope })`) does not allow: a create or update that sets a field the scope holds (`tenant`) " +
      'to another value, a create by a request whose scope reaches no document, or a write of a document the request may read but not write (a scope ' +
      'with its own `write`). `details[].path` names the field, where one is at fault. Nothing was written.',
  },
  MR_NOT_FOUND: { status: 404, description: 'No document has this identifier (on a reverse reference route: no referenced document has it).' },
  MR_ROUTE_NOT_FOUND: { status: 404, description: 'No route has this path.' },
  MR_REFERENCE_UNSET: { status: 404, description: 'The document exists but its reference field is empty.' },
  MR_REFERENCE_BROKEN: { status: 404, description: 'The reference field points to a document that no longer exists.' },
  MR_FILE_NOT_FOUND: {
    status: 404,
    description: 'The document exists but has no such file: its file field is empty, or its gallery holds no file with this `:file_id`.',
  },
  MR_ELEMENT_NOT_FOUND: { status: 404, description: 'The document exists but its array of sub-documents holds no element with this `:element_id`.' },
  MR_METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but does not serve this method; the `Allow` header lists those it serves.' },
  MR_DUPLICATE_KEY: { status: 409, description: 'A unique index refused the value; `details` names the field(s).' },
  MR_ARRAY_FULL: {
    status: 409,
    description:
      'The array of sub-documents holds its maximum number of elements (`maxElements`, default 1000): nothing was appended. `details` names the field.',
  },
  MR_ELEMENT_CONFLICT: {
    status: 409,
    description:
      'Other writes moved or changed the element of an array of sub-documents each time this write tried to change or remove it: nothing was written; try ' +
      'again.',
  },
  MR_REFERENCED: {
    status: 409,
    description:
      "The document cannot be deleted: reference fields declared `onDelete: 'restrict'` still name it. `details` has one entry per field (`Company.owner`) " +
      'with its count; nothing was deleted. Remove or change those references, then delete again.',
  },
  MR_GALLERY_FULL: {
    status: 409,
    description:
      "The gallery holds its largest number of files already (its field's `maxFiles`, default 100, named in the message): nothing was read or stored. " +
      'Delete a file first.',
  },
  MR_WRITE_CONFLICT: {
    status: 409,
    description:
      'An upload to a single-file field lost the race for it several times in a row: other writers (other app instances) replaced the file between its ' +
      'reads and writes. Nothing was written and the uploaded file was deleted; `Retry-After` says when to send it again.',
  },
  MR_PRECONDITION_FAILED: {
    status: 412,
    description:
      'The document changed since the `ETag` sent in `If-Match` was read (or the tag names another document), or it has a version that `If-None-Match` ' +
      "names (`*`: any version): nothing was written. The response's `ETag` is the current one; read the document again and retry.",
  },
  MR_REQUEST_TIMEOUT: {
    status: 408,
    description:
      "An upload's body stopped arriving: no bytes for longer than its field's `bodyTimeout` (default 30 s); or an import's, for longer than " +
      '`search.importBodyTimeout` (default 30 s). Nothing is stored, and the connection is closed.',
  },
  MR_PAYLOAD_TOO_LARGE: {
    status: 413,
    description:
      "The request body is larger than the configured limit; for an upload, the file is larger than its field's `maxSize` (answered as soon as it is " +
      'known, before the rest is read, and the connection closed).',
  },
  MR_IMPORT_TOO_LARGE: {
    status: 413,
    description:
      "An import's file is past one of its bounds: more rows than `search.importMaxRows` (default 10000), more bytes than `search.importMaxBytes` (default " +
      '10 MB), a row larger than `search.importMaxRowBytes` (default 64 kB), or an XLSX file that unzips to more than 32 × `search.importMaxBytes`; ' +
      'the message names the bound, `details[].path` the row when one is at fault. The whole file is refused, as soon as it is known: nothing was ' +
      'written.',
  },
  MR_IMAGE_TOO_LARGE: {
    status: 413,
    description:
      'An uploaded image has more pixels than its field takes (`variants.maxPixels`, else `forRoot({ images: { maxPixels } })`, 25 megapixels; an ' +
      'interlaced or progressive image counts twice, and twice again at more than 8 bits per sample), read from its header: nothing is stored.',
  },
  MR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description:
      'The request has a body that is not JSON (`Content-Type` other than `application/json`) on a route that takes JSON; or an uploaded file whose ' +
      'content (read from its first bytes, whatever its `Content-Type` says) is of a type its field does not accept.',
  },
  MR_RANGE_NOT_SATISFIABLE: { status: 416, description: 'The `Range` of a download starts past the end of the file; `Content-Range` gives its size.' },
  MR_QUERY_TIMEOUT: { status: 422, description: 'The database gave up on the query after `maxTimeMS` (default 5000 ms): narrow the query.' },
  MR_PRECONDITION_REQUIRED: {
    status: 428,
    description: 'The resource requires `If-Match` on its writes (`requireIfMatch`), and the request has none: read the document, then send its `ETag`.',
  },
  MR_HTTP_ERROR: { status: 0, description: 'Another HTTP error raised by user code (guard, pipe, interceptor); `statusCode` tells which.' },
  MR_INTERNAL: { status: 500, description: 'An unexpected failure; the real error is logged on the server, never sent.' },
  MR_DATABASE_UNAVAILABLE: { status: 503, description: 'The database cannot be reached or did not answer in time.' },
  MR_OVERLOADED: {
    status: 503,
    description:
      'The server is at its admission limit: as many requests to the generated routes as it runs at once are at work, and the queue is full or ' +
      'the wait would pass `maxWait` (`forRoot({ admission })`). Answered without touching the database; `Retry-After` says when to try again.',
  },
  MR_IMAGE_BUSY: {
    status: 503,
    description:
      'A resized image could not be made now: as many resizes as the server runs at once are running and as many wait (`forRoot({ images: { concurrency, ' +
      'queue } })`), or the resize took longer than `images.timeout`. `Retry-After` says when to try again.',
  },
} as const satisfies Record<string, { status: number; description: string }>);
for (const entry of Object.values(ERROR_CODES)) Object.freeze(entry);

/** @publicApi */
export type ErrorCode = keyof typeof ERROR_CODES;
