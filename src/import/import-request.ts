import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { article } from '../utils/naming.util.js';
import type { ImportMode } from '../interfaces/import.interface.js';

/** The formats an import reads. */
export type ImportFormat = 'csv' | 'ndjson' | 'json' | 'xlsx';

/** The media type of each format, and the other names a client may send for it. */
export const IMPORT_MEDIA_TYPES: Readonly<Record<string, ImportFormat>> = Object.freeze({
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/json': 'json',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
});

/** What an import request asks, read from its query string and its `Content-Type`. */
export interface ImportQuery {
  mode: ImportMode;
  dryRun: boolean;
  format: ImportFormat;
}

const MODES: readonly ImportMode[] = ['create', 'upsert'];
/** Every format, in the order the docs and the OpenAPI document list them. */
export const IMPORT_FORMATS: readonly ImportFormat[] = ['csv', 'ndjson', 'json', 'xlsx'];
const PARAMETERS = ['mode', 'dryRun', 'format'];

/**
 * `?mode=create|upsert` (default create), `?dryRun=true|false` (default false), `?format=` (default:
 * the `Content-Type`'s: text/csv, application/x-ndjson or application/jsonl, application/json,
 * application/vnd.openxmlformats-officedocument.spreadsheetml.sheet). Any
 * other parameter, or a value given twice, is a 400 `MR_INVALID_QUERY`; a `Content-Type` that names
 * no format, without `?format=`, a 415 `MR_UNSUPPORTED_MEDIA_TYPE`.
 */
export function importQueryOf(query: Record<string, unknown> | undefined, contentType: string | string[] | undefined): ImportQuery {
  const given = query ?? {};
  for (const name of Object.keys(given)) {
    if (!PARAMETERS.includes(name)) throw ModelRoutesException.invalidQuery(name, `Unknown parameter ${name}: an import takes ${PARAMETERS.join(', ')}`);
  }
  const mode = oneOf(given, 'mode', MODES) ?? 'create';
  const dryRun = (oneOf(given, 'dryRun', ['true', 'false']) ?? 'false') === 'true';
  const format = oneOf(given, 'format', IMPORT_FORMATS) ?? formatOfContentType(contentType);
  return { mode, dryRun, format };
}

function oneOf<V extends string>(query: Record<string, unknown>, name: string, values: readonly V[]): V | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !values.includes(value as V)) {
    throw ModelRoutesException.invalidQuery(name, `${name} must be one of ${values.join(', ')}`);
  }
  return value as V;
}

function formatOfContentType(contentType: string | string[] | undefined): ImportFormat {
  const type = String(contentType ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  const format = IMPORT_MEDIA_TYPES[type];
  if (format) return format;
  const sent = type ? `${article(type)} ${type} body` : 'a body without a Content-Type';
  throw new ModelRoutesException(
    'MR_UNSUPPORTED_MEDIA_TYPE',
    `An import reads ${Object.keys(IMPORT_MEDIA_TYPES).join(', ')} (or ?format=${IMPORT_FORMATS.join('|')}), not ${sent}`,
  );
}
