/**
 * A list's "Export": the request that downloads every document of the list's search (its filter and
 * sort; never its page: no `limit`, `skip`, `after`), through the export route the resource enables,
 * in the format chosen. A pure module (no DOM), unit-tested without a browser.
 */
import type { ResourceMetadata } from './metadata.js';
import { toBody, toQueryString, type SearchSpec } from './search-query.js';

/** The formats the export routes write (`?format=`), CSV first: the default. */
export const EXPORT_FORMATS = {
  csv: { label: 'CSV', mediaType: 'text/csv', extension: 'csv' },
  xlsx: { label: 'XLSX', mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  json: { label: 'JSON', mediaType: 'application/json', extension: 'json' },
  ndjson: { label: 'NDJSON', mediaType: 'application/x-ndjson', extension: 'ndjson' },
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** One export, as `Api.bytes` sends it and the page saves it. */
export interface ExportRequest {
  action: 'export' | 'exportPost';
  /** `format=csv`, and for `GET` the search's conditions and sort before it. */
  query: URLSearchParams;
  /** `POST`: the search, as the body of `POST /<plural>` takes it. */
  body?: Record<string, unknown>;
  /** The saved file's name: `<plural>.<extension>`, as the route's `Content-Disposition` names it. */
  filename: string;
  /** The saved file's type: the format's, never the answer's own header. */
  mediaType: string;
}

/**
 * The export of a list whose search is `spec`, or `undefined` when the resource enables neither
 * export route. The route of the list's own search method (`exportPost` with the body when the list
 * searches through `POST /<plural>`, else `export` with the query string), else the other one.
 * `GET` takes the export's `format` out of its query string before the search's conditions, so a
 * list filtered on a field named `format` exports through `POST` when it can.
 */
export function exportRequest(resource: Pick<ResourceMetadata, 'plural' | 'routes'>, spec: SearchSpec, format: ExportFormat): ExportRequest | undefined {
  const get = resource.routes.includes('export');
  const post = resource.routes.includes('exportPost');
  if (!get && !post) return undefined;
  const search: SearchSpec = { filter: spec.filter, sort: spec.sort };
  const listPosts = !resource.routes.includes('search') && resource.routes.includes('searchPost');
  const usePost = post && (listPosts || !get || 'format' in spec.filter);
  const { mediaType, extension } = EXPORT_FORMATS[format];
  const file = { filename: `${resource.plural}.${extension}`, mediaType };
  if (usePost) return { action: 'exportPost', query: new URLSearchParams({ format }), body: toBody(search), ...file };
  const query = toQueryString(search);
  query.set('format', format);
  return { action: 'export', query, ...file };
}
