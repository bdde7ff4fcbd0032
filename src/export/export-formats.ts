import { ModelRoutesException } from '../errors/model-routes.exception.js';

/**
 * The formats an export writes.
 *
 * @publicApi
 */
export type ExportFormat = 'csv' | 'ndjson' | 'json' | 'xlsx';

/** What a format's answer is: its `Content-Type` and its file name's extension. */
export interface ExportFormatRow {
  mediaType: string;
  extension: string;
}

/** Every format, in the order `Accept` ties are broken and the docs list them; CSV first, the default. */
export const EXPORT_FORMATS: Readonly<Record<ExportFormat, ExportFormatRow>> = {
  csv: { mediaType: 'text/csv; charset=utf-8', extension: 'csv' },
  ndjson: { mediaType: 'application/x-ndjson', extension: 'ndjson' },
  json: { mediaType: 'application/json; charset=utf-8', extension: 'json' },
  xlsx: { mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
};

const NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

/** The media types `Accept` may name, each for its format (`application/jsonl` is NDJSON's other name). */
const BY_MEDIA_TYPE = new Map<string, ExportFormat>([
  ...NAMES.map((name) => [EXPORT_FORMATS[name].mediaType.split(';')[0], name] as const),
  ['application/jsonl', 'ndjson'],
  ['application/json-lines', 'ndjson'],
]);

/**
 * The format of an export: `?format=` when given (one of `csv`, `ndjson`, `json`, `xlsx`, else a 400
 * `MR_INVALID_QUERY` naming `format`); else the media type of `Accept` with the highest quality
 * that names one; else CSV (a browser's `*\/*`, or no `Accept`).
 */
export function exportFormatOf(format: unknown, accept: string | string[] | undefined): ExportFormat {
  if (format !== undefined) {
    if (typeof format === 'string' && (NAMES as string[]).includes(format)) return format as ExportFormat;
    throw ModelRoutesException.invalidQuery('format', `format must be one of ${NAMES.join(', ')}`);
  }
  const header = Array.isArray(accept) ? accept.join(',') : accept;
  if (!header) return 'csv';
  let best: { format: ExportFormat; quality: number } | undefined;
  for (const range of header.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const named = BY_MEDIA_TYPE.get(type);
    if (!named) continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    if (!(quality > 0)) continue;
    if (!best || quality > best.quality) best = { format: named, quality };
  }
  return best?.format ?? 'csv';
}
