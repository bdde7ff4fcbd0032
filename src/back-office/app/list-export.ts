/**
 * A list's "Export": the request that downloads every document of the list's search (its filter and
 * sort; never its page: no `limit`, `skip`, `after`), through the export route the resource enables
 * (a reverse list's: the reverse export route of its relation), in the format chosen. A pure module
 * (no DOM), unit-tested without a browser.
 */
import type { ResourceMetadata } from './metadata.js';
import type { RouteAt } from './routes.js';
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
  action: 'export' | 'exportPost' | 'reverseExport' | 'reverseExportPost';
  /** Where the route acts: the resource, or a reverse list's referenced document and relation. */
  at: RouteAt;
  /** `format=csv`, and for `GET` the search's conditions and sort before it. */
  query: URLSearchParams;
  /** `POST`: the search, as the body of `POST /<plural>` takes it. */
  body?: Record<string, unknown>;
  /** The saved file's name: `<plural>.<extension>`, as the route's `Content-Disposition` names it. */
  filename: string;
  /** The saved file's type: the format's, never the answer's own header. */
  mediaType: string;
}

/** A reverse list (the documents whose `field` references the `target` document `id`), with the routes its relation enables. */
export interface ReverseList {
  target: Pick<ResourceMetadata, 'path' | 'plural'>;
  id: string;
  field: string;
  routes: ReadonlyArray<'reverse' | 'reversePost' | 'reverseExport' | 'reverseExportPost'>;
}

/**
 * The export of a list whose search is `spec`, or `undefined` when the resource (for a `reverse`
 * list: its relation) enables neither export route. The route of the list's own search method
 * (`exportPost` with the body when the list searches through `POST /<plural>`, else `export` with
 * the query string), else the other one; a reverse list's `reverseExport` and `reverseExportPost`
 * the same way, by its `reverse` and `reversePost` routes. `GET` takes the export's `format` out of
 * its query string before the search's conditions, so a list filtered on a field named `format`
 * exports through `POST` when it can.
 */
export function exportRequest(
  resource: Pick<ResourceMetadata, 'path' | 'plural' | 'routes'>,
  spec: SearchSpec,
  format: ExportFormat,
  reverse?: ReverseList,
): ExportRequest | undefined {
  const routes: readonly string[] = reverse ? reverse.routes : resource.routes;
  const [search, searchPost, exportGet, exportPost] = reverse
    ? (['reverse', 'reversePost', 'reverseExport', 'reverseExportPost'] as const)
    : (['search', 'searchPost', 'export', 'exportPost'] as const);
  const get = routes.includes(exportGet);
  const post = routes.includes(exportPost);
  if (!get && !post) return undefined;
  const searched: SearchSpec = { filter: spec.filter, sort: spec.sort };
  const listPosts = !routes.includes(search) && routes.includes(searchPost);
  const usePost = post && (listPosts || !get || 'format' in spec.filter);
  const { mediaType, extension } = EXPORT_FORMATS[format];
  // The file is named after the documents exported, as the route's `Content-Disposition` names it.
  const file = { filename: `${resource.plural}.${extension}`, mediaType };
  const at: RouteAt = reverse ? { resource: reverse.target, id: reverse.id, source: resource, field: reverse.field } : { resource };
  if (usePost) return { action: exportPost, at, query: new URLSearchParams({ format }), body: toBody(searched), ...file };
  const query = toQueryString(searched);
  query.set('format', format);
  return { action: exportGet, at, query, ...file };
}
