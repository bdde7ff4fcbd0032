import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { normalizePath } from '../query/field-path.util.js';

/**
 * Turns a value of a search that the schema cannot cast into a 400 `MR_INVALID_VALUE` that names
 * its place in the query, as the query parser names the places it refuses (`query.employees`,
 * `query.$or.1.birth.$gte`, `query.owner.$in.0`, `query.vaccinations.date.$gte`,
 * `query.vaccinations.$elemMatch.date`); `undefined` for any other failure.
 *
 * Below a sub-document or an array of them, Mongoose names only the sub-schema's own path (`date`
 * for `vaccinations.date`): the condition is found in the filter by that tail and by the value.
 */
export function searchError(error: unknown, filter: Record<string, unknown>, at: SearchPlace = { path: 'query', label: '' }): ModelRoutesException | undefined {
  const failure = (error ?? {}) as { name?: string; path?: string; kind?: string; value?: unknown };
  if (failure.name !== 'CastError') return undefined;
  const found = locate(filter, failure.path ?? '', failure.value, at.path);
  const field = found?.field ?? failure.path ?? '';
  const path = found?.path ?? `${at.path}.${field}`;
  const message = `${describe(failure.value)} cannot be converted to ${failure.kind ?? 'the type of the field'}`;
  return new ModelRoutesException('MR_INVALID_VALUE', `Invalid value for '${at.label}${field}': ${message}`, [{ path, message }]);
}

/**
 * Where a filter sits in the client's search: `query` for the search's own; for the filter a
 * condition across a reference holds (`owner.birth`), `query.owner` and the label `owner.`.
 */
export interface SearchPlace {
  path: string;
  /** Put before a field's name in messages: `owner.`. */
  label: string;
}

/** MongoDB's MaxTimeMSExpired: the server gave up on an operation after its `maxTimeMS`. */
const MAX_TIME_MS_EXPIRED = 50;

/**
 * The failure to answer for a search whose parallel operations failed (`first` is the first to):
 * a time limit, if any of them reached one, else `first`. One cancelled query can fail the others of
 * its request otherwise: FerretDB answers a query stopped at its `maxTimeMS` with MaxTimeMSExpired
 * here and with an InternalError there, and the request should say why it failed, not which
 * operation lost the race (a 422 `MR_QUERY_TIMEOUT`, not a 500).
 */
export async function timeLimitAmong(operations: readonly unknown[], first: unknown): Promise<unknown> {
  const settled = await Promise.allSettled(operations);
  const timeLimit = settled.find((result) => result.status === 'rejected' && (result.reason as { code?: unknown })?.code === MAX_TIME_MS_EXPIRED);
  return timeLimit ? (timeLimit as PromiseRejectedResult).reason : first;
}

interface Place {
  /** Where the operand sits in the search body: `query.vaccinations.date.$gte`. */
  path: string;
  /** The full dotted field it is compared with: `vaccinations.date`. */
  field: string;
}

/**
 * The first condition in `filter` on the field Mongoose named (`failed`, the whole dotted path or,
 * below a sub-document, its tail) whose operand is `cast`; failing that, the first on that field.
 * Conditions inside `$and`/`$or`/`$nor` and `$elemMatch` (relative to the array) are searched too.
 */
function locate(filter: unknown, failed: string, cast: unknown, root: string): Place | undefined {
  const places: Array<Place & { exact: boolean; valued: boolean }> = [];
  const visit = (value: unknown, path: string, base: string): void => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}.${key}`;
      if (key.startsWith('$')) {
        if (Array.isArray(item)) item.forEach((filter, index) => visit(filter, `${at}.${index}`, base));
        continue;
      }
      const field = base ? `${base}.${key}` : key;
      const name = normalizePath(field);
      if (name === failed || name.endsWith(`.${failed}`)) {
        const place = placeOf(item, cast);
        places.push({ path: `${at}${place}`, field, exact: name === failed, valued: place !== '' || sameValue(item, cast) });
      }
      const elements = item && typeof item === 'object' ? (item as Record<string, unknown>).$elemMatch : undefined;
      if (elements && typeof elements === 'object' && Object.keys(elements).some((name) => !name.startsWith('$') || ['$and', '$or', '$nor'].includes(name))) {
        visit(elements, `${at}.$elemMatch`, field);
      }
    }
  };
  visit(filter, root, '');
  const best = places.find((place) => place.valued && place.exact) ?? places.find((place) => place.valued) ?? places.find((place) => place.exact) ?? places[0];
  return best && { path: best.path, field: best.field };
}

/** `.$gte`, `.$in.0`, `.$not.$lt`: where `cast` sits in a condition; `''` for a literal. */
function placeOf(condition: unknown, cast: unknown): string {
  if (!condition || typeof condition !== 'object' || Array.isArray(condition)) return '';
  for (const [operator, operand] of Object.entries(condition)) {
    if (!operator.startsWith('$')) continue;
    if (Array.isArray(operand)) {
      const index = operand.findIndex((item) => sameValue(item, cast));
      if (index >= 0) return `.${operator}.${index}`;
    } else if (operand && typeof operand === 'object') {
      const inner = placeOf(operand, cast);
      if (inner) return `.${operator}${inner}`;
    } else if (sameValue(operand, cast)) {
      return `.${operator}`;
    }
  }
  return '';
}

function sameValue(a: unknown, b: unknown): boolean {
  return a !== null && typeof a !== 'object' && String(a) === String(b);
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? `"${value}"` : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
