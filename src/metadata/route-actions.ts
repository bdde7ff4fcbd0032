import type { ConditionalKind } from '../concurrency/conditional-request.js';
import { article } from '../utils/naming.util.js';

/** @publicApi */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'ALL' | 'OPTIONS' | 'HEAD';

/** Where a handler's argument comes from. */
export type ParamSource =
  | 'id' // the identifier of the resource the path starts with (`:company_id`)
  | 'targetId' // the identifier of the referenced document (`:user_id` of a reverse route)
  | 'relatedId' // the identifier of the document added to or removed from an array of references
  | 'fileId' // the identifier of one file of a gallery (`:file_id`); undefined on a single file's routes
  | 'elementId' // the `_id` of one element of an array of sub-documents (`:element_id`)
  | 'query' // the query string
  | 'body' // the JSON body
  | 'request'
  | 'response'
  | 'rawResponse'; // the response, which the handler sends itself (a file download)

/** The names a path or a text is made of: the resource, and for reference routes the field and its target. */
export interface RouteNames {
  /** The resource whose routes these are (`Company`), its path segments and id parameter. */
  source: { name: string; path: string; plural: string; idParam: string };
  /** Reference routes: the field (`owner`)... */
  field?: string;
  /** ...and what it references (`Entrepreneur` at `user`); absent for a model that is not a resource. */
  target?: { name: string; path?: string; idParam?: string };
  /** Reference routes: the parameter of the related document (`user_id`, or `related_id`). */
  relatedParam?: string;
  /** A gallery's routes: the parameter of one of its files (`file_id`). */
  fileParam?: string;
  /** The element routes of an array of sub-documents: the parameter of one element (`element_id`). */
  elementParam?: string;
}

/** What one generated route action is: everything the route table, the controllers and the docs need. */
export interface RouteActionRow {
  /** Routes of a resource, of one of its reference fields, of one of its file fields, or of the elements of one of its arrays of sub-documents. */
  scope: 'resource' | 'reference' | 'file' | 'element';
  method: RouteMethod;
  path(names: RouteNames): string;
  /** Status of a success. */
  status: 200 | 201;
  /**
   * The handler's arguments, in order (the request's `RouteCall` follows them). The body a handler
   * is given is the one the route's entry guard checked (see `RouteCall.bodyFor`).
   */
  params: readonly ParamSource[];
  /** The body it reads: a document to create, changes to merge, a search; or an element to append (`element`), changes to merge into one (`elementPatch`). */
  body?: 'create' | 'update' | 'search' | 'element' | 'elementPatch';
  /** It reads the search parameters of the query string. */
  searchQuery?: true;
  /** It reads documents and takes `expand` (the query string's, or its search body's): see `ReferenceRoutesOptions.expand`. */
  expand?: true;
  /**
   * What a success answers, and of which model: the resource's, or the referenced one's; or a file's
   * bytes; or one element of an array of sub-documents; or every match of a search, streamed in a
   * format of the client's choice (`export`); or the report of an import (`report`), or of a bulk
   * change (`bulk`).
   */
  answers: { shape: 'document' | 'list' | 'file' | 'element' | 'export' | 'report' | 'bulk' | 'history'; of: 'source' | 'target' };
  /** Off unless its options turn it on (`routes: { export: true }`): a route that reads a whole collection at once is an access decision. */
  optIn?: true;
  /** The option of the resource that the route exists with: its trash (`@GeneratedResource({ softDelete })`), its history (`history`). */
  feature?: 'softDelete' | 'history';
  /** It reads an uploaded file (multipart/form-data or a raw body). */
  upload?: true;
  /** It answers `Location` with the created document's URL. */
  location?: true;
  /** Its part in conditional requests (`ETag`, `If-None-Match`, `If-Match`): see `ConditionalKind`. */
  conditional?: ConditionalKind;
  /** For reference and file fields: whether the route exists for this field (`isArray`: an array of references, or a gallery). */
  appliesTo?(field: { isArray: boolean; targetIsResource: boolean }): boolean;
  /** The errors it documents, by status: the codes each status carries. */
  errors: ReadonlyArray<readonly [number, string]>;
  summary(names: RouteNames): string;
  description(names: RouteNames): string;
}

const one = ({ source }: RouteNames) => `/${source.path}/:${source.idParam}`;
const forward = (names: RouteNames) => `${one(names)}/${names.field}`;
const reverse = ({ source, target, field }: RouteNames) => `/${target!.path}/:${target!.idParam}/${source.plural}/${field}`;
const related = (names: RouteNames) => `${forward(names)}/:${names.relatedParam}`;
const an = (name: string) => `${article(name)} ${name}`;
const file = (names: RouteNames) => (names.fileParam ? `${forward(names)}/:${names.fileParam}` : forward(names));
const theFile = ({ field, fileParam }: RouteNames) => (fileParam ? `a file of the ${field}` : `the ${field}`);
const element = (names: RouteNames) => `${forward(names)}/:${names.elementParam}`;

const WRITE = 'MR_INVALID_BODY, MR_INVALID_JSON, MR_VALIDATION_FAILED, MR_REFERENCE_NOT_FOUND';
const SEARCH = 'MR_INVALID_QUERY, MR_INVALID_VALUE, MR_INVALID_CURSOR, MR_UNSUPPORTED_QUERY, MR_RELATION_FILTER_TOO_BROAD';
const BODY_LIMITS = [
  [413, 'MR_PAYLOAD_TOO_LARGE'],
  [415, 'MR_UNSUPPORTED_MEDIA_TYPE'],
] as const;
const UPLOAD_ERRORS = [
  [400, 'MR_INVALID_ID, MR_INVALID_FILE'],
  [404, 'MR_NOT_FOUND'],
  [408, 'MR_REQUEST_TIMEOUT'],
  [413, 'MR_PAYLOAD_TOO_LARGE, MR_IMAGE_TOO_LARGE'],
  [415, 'MR_UNSUPPORTED_MEDIA_TYPE'],
] as const;
const UPLOAD_TEXT =
  'The file is multipart/form-data (its first file part) or the raw body with its Content-Type; its type is read from its content and must be one the ' +
  'field accepts.';
const ELEMENT_ERRORS = [[404, 'MR_NOT_FOUND, MR_ELEMENT_NOT_FOUND']] as const;
const EXPORT_ERRORS = [
  [422, 'MR_QUERY_TIMEOUT'],
  [503, 'MR_OVERLOADED'],
] as const;
const EXPORT_TEXT =
  'Every match of the search, streamed: CSV (the default), NDJSON, JSON or XLSX, chosen by ?format= or Accept; a nested object is flattened to dotted ' +
  'columns in CSV and XLSX, ' +
  ("dates are ISO 8601, and CSV text that a spreadsheet would run as a formula is prefixed with '. Without limit, a search that matches more than " +
    'search.exportMaxRows documents ') +
  'is refused: a 400 MR_EXPORT_TOO_LARGE within the first page, an aborted transfer past it (never a file that looks complete).';
const IMPORT_TEXT =
  'Creates (mode=create, the default) or creates and updates (mode=upsert, keyed by the id field) the documents of a file: CSV (text/csv, a header row, ' +
  'dotted columns for nested fields), ' +
  ('NDJSON (application/x-ndjson), a JSON array (application/json) or XLSX (its first sheet, read as CSV is; a formula cell refuses the file); ?format= ' +
    'overrides the Content-Type. Every row is checked as a create (or an update) is; a refused row is reported ') +
  ('with its number and the details that write would give, and the others are written. dryRun=true checks every row and writes nothing. A file that cannot ' +
    'be read, or is past ') +
  'search.importMaxRows, importMaxBytes or importMaxRowBytes, is refused whole, nothing written.';
const BULK_TEXT =
  'The query string holds the conditions, as GET /<plural> takes them (field=value, field[op]=value, conditions across references); at least one is ' +
  'required, and limit, skip, sort, ' +
  ('select, expand and after are refused. Every match is written by its own write (the rules of the single route: references checked, onDelete, validators, ' +
    'write serialisation), ') +
  ('a few at a time in _id order, each filtered on the conditions again (a document changed in between is skipped); a filter that matches more than ' +
    'search.bulkMaxDocuments ') +
  ('documents is refused whole, with their count (400 MR_BULK_TOO_LARGE, nothing written). dryRun=true lists the matches and writes nothing. The report ' +
    'names every document and what became of it.');
const MERGE_TEXT =
  'Changes only the fields sent, at every depth: a nested object is merged, null removes a field, arrays are replaced whole. Their validators run.';

/**
 * Every generated route action, one row each. Its key is its one name: the route option
 * (`routes: { findOne: false }`, `references: { owner: { reverse: false } }`), the handler you
 * override (`findOne(id)`), and the operationId (`company_findOne`, `company_owner_reverse`).
 * Adding an action is a row here plus its handler.
 */
export const ROUTE_ACTIONS = {
  findOne: {
    scope: 'resource',
    method: 'GET',
    path: one,
    status: 200,
    params: ['id'],
    conditional: 'read',
    expand: true,
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source }) => `Get one ${source.name}`,
    description: ({ source }) => `The ${source.name} whose identifier is in the path.`,
  },
  create: {
    scope: 'resource',
    method: 'POST',
    path: ({ source }) => `/${source.path}`,
    status: 201,
    params: ['body'],
    body: 'create',
    conditional: 'tag',
    answers: { shape: 'document', of: 'source' },
    location: true,
    errors: [[400, WRITE], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
    summary: ({ source }) => `Create ${an(source.name)}`,
    description: ({ source }) =>
      `Creates ${an(source.name)}; answers the document and its URL in Location. Unknown fields are refused; references must name existing documents.`,
  },
  update: {
    scope: 'resource',
    method: 'PUT',
    path: one,
    status: 200,
    params: ['id', 'body'],
    body: 'update',
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [[400, `MR_INVALID_ID, ${WRITE}, MR_REFERENCE_CYCLE`], [404, 'MR_NOT_FOUND'], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
    summary: ({ source }) => `Modify ${an(source.name)}`,
    description: () => MERGE_TEXT,
  },
  patch: {
    scope: 'resource',
    method: 'PATCH',
    path: one,
    status: 200,
    params: ['id', 'body'],
    body: 'update',
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [[400, `MR_INVALID_ID, ${WRITE}, MR_REFERENCE_CYCLE`], [404, 'MR_NOT_FOUND'], [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
    summary: ({ source }) => `Modify ${an(source.name)} (same as PUT)`,
    description: () => MERGE_TEXT,
  },
  delete: {
    scope: 'resource',
    method: 'DELETE',
    path: one,
    status: 200,
    params: ['id'],
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
      [409, 'MR_REFERENCED'],
    ],
    summary: ({ source }) => `Delete ${an(source.name)}`,
    description: ({ source }) => `Deletes the ${source.name} and answers it.`,
  },
  search: {
    scope: 'resource',
    method: 'GET',
    path: ({ source }) => `/${source.plural}`,
    status: 200,
    params: ['query'],
    searchQuery: true,
    expand: true,
    answers: { shape: 'list', of: 'source' },
    errors: [[400, SEARCH]],
    summary: ({ source }) => `Search ${source.name} documents`,
    description: () => 'Query-string search: field=value, field[op]=value, sort, select, limit, skip.',
  },
  searchPost: {
    scope: 'resource',
    method: 'POST',
    path: ({ source }) => `/${source.plural}`,
    status: 200,
    params: ['body'],
    body: 'search',
    expand: true,
    answers: { shape: 'list', of: 'source' },
    errors: [[400, `${SEARCH}, MR_INVALID_BODY, MR_INVALID_JSON`], ...BODY_LIMITS],
    summary: ({ source }) => `Search ${source.name} documents (flexible)`,
    description: () => 'A MongoDB filter over schema fields, with an operator allowlist.',
  },
  export: {
    scope: 'resource',
    method: 'GET',
    path: ({ source }) => `/${source.plural}/export`,
    status: 200,
    params: ['query', 'rawResponse'],
    searchQuery: true,
    expand: true,
    optIn: true,
    answers: { shape: 'export', of: 'source' },
    errors: [[400, SEARCH], ...EXPORT_ERRORS],
    summary: ({ source }) => `Export ${source.name} documents`,
    description: () => `Query-string search as GET /<plural> takes it (filter, sort, select, expand, limit), format in ?format=. ${EXPORT_TEXT}`,
  },
  exportPost: {
    scope: 'resource',
    method: 'POST',
    path: ({ source }) => `/${source.plural}/export`,
    status: 200,
    params: ['body', 'rawResponse'],
    body: 'search',
    expand: true,
    optIn: true,
    answers: { shape: 'export', of: 'source' },
    errors: [[400, `${SEARCH}, MR_INVALID_BODY, MR_INVALID_JSON`], ...BODY_LIMITS, ...EXPORT_ERRORS],
    summary: ({ source }) => `Export ${source.name} documents (flexible)`,
    description: () => `The search body of POST /<plural>, format in ?format=. ${EXPORT_TEXT}`,
  },
  import: {
    scope: 'resource',
    method: 'POST',
    path: ({ source }) => `/${source.plural}/import`,
    status: 200,
    params: ['query', 'request'],
    optIn: true,
    answers: { shape: 'report', of: 'source' },
    errors: [
      [400, 'MR_INVALID_IMPORT, MR_INVALID_QUERY'],
      [408, 'MR_REQUEST_TIMEOUT'],
      [413, 'MR_IMPORT_TOO_LARGE, MR_PAYLOAD_TOO_LARGE'],
      [415, 'MR_UNSUPPORTED_MEDIA_TYPE'],
    ],
    summary: ({ source }) => `Import ${source.name} documents`,
    description: () => IMPORT_TEXT,
  },
  updateMany: {
    scope: 'resource',
    method: 'PATCH',
    path: ({ source }) => `/${source.plural}`,
    status: 200,
    params: ['query', 'body'],
    body: 'update',
    searchQuery: true,
    optIn: true,
    answers: { shape: 'bulk', of: 'source' },
    errors: [[400, `${WRITE}, ${SEARCH}, MR_BULK_TOO_LARGE`], [428, 'MR_PRECONDITION_REQUIRED'], ...BODY_LIMITS],
    summary: ({ source }) => `Modify every ${source.name} that matches`,
    description: () => `The body is the changes, as PATCH /<path>/:id takes them (${MERGE_TEXT.charAt(0).toLowerCase()}${MERGE_TEXT.slice(1)}) ${BULK_TEXT}`,
  },
  deleteMany: {
    scope: 'resource',
    method: 'DELETE',
    path: ({ source }) => `/${source.plural}`,
    status: 200,
    params: ['query'],
    searchQuery: true,
    optIn: true,
    answers: { shape: 'bulk', of: 'source' },
    errors: [
      [400, `${SEARCH}, MR_BULK_TOO_LARGE`],
      [428, 'MR_PRECONDITION_REQUIRED'],
    ],
    summary: ({ source }) => `Delete every ${source.name} that matches`,
    description: () =>
      `Each delete applies the onDelete rules of the fields that reference the document: one that a restrict field keeps is refused (MR_REFERENCED in its ` +
      `item). ${BULK_TEXT}`,
  },
  trash: {
    scope: 'resource',
    method: 'GET',
    path: ({ source }) => `/${source.plural}/trash`,
    status: 200,
    params: ['query'],
    searchQuery: true,
    feature: 'softDelete',
    answers: { shape: 'list', of: 'source' },
    errors: [[400, SEARCH]],
    summary: ({ source }) => `Search the deleted ${source.name} documents`,
    description: () =>
      'The documents a DELETE marked (soft delete), searched as GET /<plural> searches the others: field=value, field[op]=value, sort (deletedAt: when), ' +
      'select, limit, skip.',
  },
  restore: {
    scope: 'resource',
    method: 'POST',
    path: (names) => `${one(names)}/restore`,
    status: 200,
    params: ['id'],
    conditional: 'write',
    feature: 'softDelete',
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
      [409, 'MR_DUPLICATE_KEY'],
    ],
    summary: ({ source }) => `Restore a deleted ${source.name}`,
    description: ({ source }) => `Brings back a ${source.name} that a DELETE marked, as it was, and answers it; 404 for one that is not in the trash.`,
  },
  purge: {
    scope: 'resource',
    method: 'DELETE',
    path: (names) => `${one(names)}/purge`,
    status: 200,
    params: ['id'],
    conditional: 'write',
    feature: 'softDelete',
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
      [409, 'MR_REFERENCED'],
    ],
    summary: ({ source }) => `Delete a deleted ${source.name} for good`,
    description: ({ source }) =>
      `Removes a ${source.name} that a DELETE marked, with its files, applying the onDelete rules of the fields that reference it; 404 for one that is not ` +
      `in the trash.`,
  },
  history: {
    scope: 'resource',
    method: 'GET',
    path: (names) => `${one(names)}/history`,
    status: 200,
    params: ['id', 'query'],
    feature: 'history',
    answers: { shape: 'history', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID, MR_INVALID_QUERY'],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source }) => `The versions of ${an(source.name)}`,
    description: ({ source }) =>
      `The states the writes of the ${source.name} made, the latest first (limit, default 20, at most 100; skip): each with its version, when, who (the ` +
      `resource's history actor), ` +
      'which route, the operation and the changed paths, and the document as that write left it (hidden fields never answered).',
  },
  revert: {
    scope: 'resource',
    method: 'POST',
    path: (names) => `${one(names)}/history/restore`,
    status: 200,
    params: ['id', 'query'],
    conditional: 'write',
    feature: 'history',
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID, MR_INVALID_QUERY'],
      [404, 'MR_NOT_FOUND'],
      [409, 'MR_DUPLICATE_KEY'],
    ],
    summary: ({ source }) => `Restore a version of ${an(source.name)}`,
    description: ({ source }) =>
      `Writes back the state a version of the ${source.name} had (?version=, from its history), hidden fields included, and answers the document: a write ` +
      `of its own, kept in the history.`,
  },
  find: {
    scope: 'reference',
    method: 'GET',
    path: forward,
    status: 200,
    params: ['id'],
    conditional: 'read',
    expand: true,
    answers: { shape: 'document', of: 'target' },
    appliesTo: ({ isArray }) => !isArray,
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND, MR_REFERENCE_UNSET, MR_REFERENCE_BROKEN'],
    ],
    summary: ({ source, field }) => `Get the ${field} of ${an(source.name)}`,
    description: ({ source, field, target }) => `The ${target!.name} that ${source.name}.${field} points to.`,
  },
  list: {
    scope: 'reference',
    method: 'GET',
    path: forward,
    status: 200,
    params: ['id', 'query'],
    searchQuery: true,
    expand: true,
    answers: { shape: 'list', of: 'target' },
    appliesTo: ({ isArray }) => isArray,
    errors: [
      [400, `MR_INVALID_ID, ${SEARCH}`],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source, field }) => `The ${field} of ${an(source.name)}`,
    description: ({ source, field, target }) =>
      `The envelope of the ${target!.name} documents whose identifiers ${source.name}.${field} holds; status.missing lists those that name no document.`,
  },
  reverse: {
    scope: 'reference',
    method: 'GET',
    path: reverse,
    status: 200,
    params: ['targetId', 'query'],
    searchQuery: true,
    expand: true,
    answers: { shape: 'list', of: 'source' },
    appliesTo: ({ targetIsResource }) => targetIsResource,
    errors: [
      [400, `MR_INVALID_ID, ${SEARCH}`],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source, field, target }) => `${source.name} documents whose ${field} is this ${target!.name}`,
    description: ({ field }) =>
      `The query, if any, is ANDed with ${field} = the identifier in the path; an identifier that names no document, and that no document references, is ` +
      `a 404.`,
  },
  reversePost: {
    scope: 'reference',
    method: 'POST',
    path: reverse,
    status: 200,
    params: ['targetId', 'body'],
    body: 'search',
    expand: true,
    answers: { shape: 'list', of: 'source' },
    appliesTo: ({ targetIsResource }) => targetIsResource,
    errors: [[400, `MR_INVALID_ID, ${SEARCH}, MR_INVALID_BODY, MR_INVALID_JSON`], [404, 'MR_NOT_FOUND'], ...BODY_LIMITS],
    summary: ({ source, field, target }) => `${source.name} documents whose ${field} is this ${target!.name} (flexible)`,
    description: ({ field }) =>
      `The body's query is ANDed with ${field} = the identifier in the path; an identifier that names no document, and that no document references, is a 404.`,
  },
  reverseExport: {
    scope: 'reference',
    method: 'GET',
    path: (names) => `${reverse(names)}/export`,
    status: 200,
    params: ['targetId', 'query', 'rawResponse'],
    searchQuery: true,
    expand: true,
    optIn: true,
    answers: { shape: 'export', of: 'source' },
    appliesTo: ({ targetIsResource }) => targetIsResource,
    errors: [[400, `MR_INVALID_ID, ${SEARCH}`], [404, 'MR_NOT_FOUND'], ...EXPORT_ERRORS],
    summary: ({ source, field, target }) => `Export the ${source.name} documents whose ${field} is this ${target!.name}`,
    description: ({ field }) => `The reverse route's search, ANDed with ${field} = the identifier in the path, format in ?format=. ${EXPORT_TEXT}`,
  },
  reverseExportPost: {
    scope: 'reference',
    method: 'POST',
    path: (names) => `${reverse(names)}/export`,
    status: 200,
    params: ['targetId', 'body', 'rawResponse'],
    body: 'search',
    expand: true,
    optIn: true,
    answers: { shape: 'export', of: 'source' },
    appliesTo: ({ targetIsResource }) => targetIsResource,
    errors: [[400, `MR_INVALID_ID, ${SEARCH}, MR_INVALID_BODY, MR_INVALID_JSON`], [404, 'MR_NOT_FOUND'], ...BODY_LIMITS, ...EXPORT_ERRORS],
    summary: ({ source, field, target }) => `Export the ${source.name} documents whose ${field} is this ${target!.name} (flexible)`,
    description: ({ field }) => `The reverse POST route's search body, ANDed with ${field} = the identifier in the path, format in ?format=. ${EXPORT_TEXT}`,
  },
  add: {
    scope: 'reference',
    method: 'POST',
    path: related,
    status: 200,
    params: ['id', 'relatedId'],
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    appliesTo: ({ isArray, targetIsResource }) => isArray && targetIsResource,
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source, field, target }) => `Add ${an(target!.name)} to the ${field} of ${an(source.name)}`,
    description: ({ source }) => `Adds the identifier once (no duplicates); answers the ${source.name}.`,
  },
  remove: {
    scope: 'reference',
    method: 'DELETE',
    path: related,
    status: 200,
    params: ['id', 'relatedId'],
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    appliesTo: ({ isArray, targetIsResource }) => isArray && targetIsResource,
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND'],
    ],
    summary: ({ source, field, target }) => `Remove ${an(target!.name)} from the ${field} of ${an(source.name)}`,
    description: ({ source }) => `Removes the identifier; answers the ${source.name}.`,
  },
  upload: {
    scope: 'file',
    method: 'PUT',
    path: forward,
    status: 200,
    params: ['id', 'request', 'response'],
    upload: true,
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    appliesTo: ({ isArray }) => !isArray,
    errors: [...UPLOAD_ERRORS, [409, 'MR_WRITE_CONFLICT']],
    summary: ({ source, field }) => `Upload the ${field} of ${an(source.name)}`,
    description: ({ source }) => `${UPLOAD_TEXT} Replaces the previous file, which is deleted; answers the ${source.name}.`,
  },
  addFile: {
    scope: 'file',
    method: 'POST',
    path: forward,
    status: 201,
    params: ['id', 'request', 'response'],
    upload: true,
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    appliesTo: ({ isArray }) => isArray,
    location: true,
    errors: [...UPLOAD_ERRORS, [409, 'MR_GALLERY_FULL']],
    summary: ({ source, field }) => `Add a file to the ${field} of ${an(source.name)}`,
    description: ({ source }) => `${UPLOAD_TEXT} Answers the ${source.name}; the new file's URL is in Location.`,
  },
  download: {
    scope: 'file',
    method: 'GET',
    path: file,
    status: 200,
    params: ['id', 'fileId', 'query', 'request', 'rawResponse'],
    answers: { shape: 'file', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID, MR_INVALID_QUERY'],
      [404, 'MR_NOT_FOUND, MR_FILE_NOT_FOUND'],
      [415, 'MR_UNSUPPORTED_MEDIA_TYPE'],
      [416, 'MR_RANGE_NOT_SATISFIABLE'],
      [503, 'MR_DATABASE_UNAVAILABLE, MR_IMAGE_BUSY'],
    ],
    summary: (names) => `Download ${theFile(names)} of ${an(names.source.name)}`,
    description: () =>
      'Streamed, with ETag, Last-Modified and Cache-Control; Range (one range) answers 206, If-None-Match 304; HEAD answers the headers only. ' +
      'Images of a field with variants take w, h, fit and format: the resized image, computed once (503 with Retry-After while the resizes are all taken).',
  },
  deleteFile: {
    scope: 'file',
    method: 'DELETE',
    path: file,
    status: 200,
    params: ['id', 'fileId'],
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [
      [400, 'MR_INVALID_ID'],
      [404, 'MR_NOT_FOUND, MR_FILE_NOT_FOUND'],
    ],
    summary: (names) => `Delete ${theFile(names)} of ${an(names.source.name)}`,
    description: ({ source }) => `Deletes the file and its variants; answers the ${source.name}.`,
  },
  addElement: {
    scope: 'element',
    method: 'POST',
    path: forward,
    status: 201,
    params: ['id', 'body', 'request', 'response'],
    body: 'element',
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    location: true,
    errors: [[400, `MR_INVALID_ID, ${WRITE}`], [404, 'MR_NOT_FOUND'], [409, 'MR_DUPLICATE_KEY, MR_ARRAY_FULL'], ...BODY_LIMITS],
    summary: ({ source, field }) => `Add an element to the ${field} of ${an(source.name)}`,
    description: ({ source }) =>
      `Appends one element, checked as an element of a whole-document write is; the array is not read and written back, so concurrent appends are all ` +
      `kept. Answers the ${source.name}; the new element's URL is in Location.`,
  },
  findElement: {
    scope: 'element',
    method: 'GET',
    path: element,
    status: 200,
    params: ['id', 'elementId'],
    conditional: 'read',
    answers: { shape: 'element', of: 'source' },
    errors: [[400, 'MR_INVALID_ID'], ...ELEMENT_ERRORS],
    summary: ({ source, field }) => `Get an element of the ${field} of ${an(source.name)}`,
    description: ({ source }) => `The element whose _id is in the path; its ETag is the ${source.name}'s.`,
  },
  patchElement: {
    scope: 'element',
    method: 'PATCH',
    path: element,
    status: 200,
    params: ['id', 'elementId', 'body'],
    body: 'elementPatch',
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [[400, `MR_INVALID_ID, ${WRITE}`], ...ELEMENT_ERRORS, [409, 'MR_DUPLICATE_KEY'], ...BODY_LIMITS],
    summary: ({ source, field }) => `Modify an element of the ${field} of ${an(source.name)}`,
    description: ({ source }) =>
      `Changes only the element's fields sent, at every depth (null removes one); the element that results is checked as an element of a whole-document ` +
      `write is. Answers the ${source.name}.`,
  },
  deleteElement: {
    scope: 'element',
    method: 'DELETE',
    path: element,
    status: 200,
    params: ['id', 'elementId'],
    conditional: 'write',
    answers: { shape: 'document', of: 'source' },
    errors: [[400, 'MR_INVALID_ID'], ...ELEMENT_ERRORS],
    summary: ({ source, field }) => `Remove an element from the ${field} of ${an(source.name)}`,
    description: ({ source }) => `Removes the element; answers the ${source.name}.`,
  },
} as const satisfies Record<string, RouteActionRow>;

export type RouteActionName = keyof typeof ROUTE_ACTIONS;
export type ResourceActionName = { [K in RouteActionName]: (typeof ROUTE_ACTIONS)[K]['scope'] extends 'resource' ? K : never }[RouteActionName];
export type FileActionName = { [K in RouteActionName]: (typeof ROUTE_ACTIONS)[K]['scope'] extends 'file' ? K : never }[RouteActionName];
export type ElementActionName = { [K in RouteActionName]: (typeof ROUTE_ACTIONS)[K]['scope'] extends 'element' ? K : never }[RouteActionName];
export type ReferenceActionName = Exclude<RouteActionName, ResourceActionName | FileActionName | ElementActionName>;

type ActionNameOf<S> = S extends 'resource'
  ? ResourceActionName
  : S extends 'file'
    ? FileActionName
    : S extends 'element'
      ? ElementActionName
      : ReferenceActionName;

/** The action names of one scope, in table order. */
export function actionsOf<S extends RouteActionRow['scope']>(scope: S): Array<ActionNameOf<S>> {
  return (Object.keys(ROUTE_ACTIONS) as RouteActionName[]).filter((name) => ROUTE_ACTIONS[name].scope === scope) as never;
}

/** The row of an action, typed as the general shape. */
export function routeAction(name: RouteActionName): RouteActionRow {
  return ROUTE_ACTIONS[name];
}
