import { ModelRoutesException } from '../errors/model-routes.exception.js';

/**
 * Turns a value of a search that the schema cannot cast into a 400 `MR_INVALID_VALUE` that names
 * its place in the query, as the query parser names the places it refuses (`query.employees`,
 * `query.$or.1.birth.$gte`, `query.owner.$in.0`); `undefined` for any other failure.
 */
export function searchError(error: unknown, filter: Record<string, unknown>): ModelRoutesException | undefined {
  const failure = (error ?? {}) as { name?: string; path?: string; kind?: string; value?: unknown };
  if (failure.name !== 'CastError') return undefined;
  const field = failure.path ?? '';
  const path = locate(filter, field, 'query', failure.value) ?? `query.${field}`;
  const message = `${describe(failure.value)} cannot be converted to ${failure.kind ?? 'the type of the field'}`;
  return new ModelRoutesException('MR_INVALID_VALUE', `Invalid value for '${field}': ${message}`, [{ path, message }]);
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

/** The path, in a filter, of the first condition on `field`, down to the operand equal to `cast` (the value Mongoose could not cast). */
function locate(value: unknown, field: string, path: string, cast: unknown): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = locate(item, field, `${path}.${index}`, cast);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === field) return `${path}.${key}${placeOf(item, cast)}`;
      if (key.startsWith('$')) {
        const found = locate(item, field, `${path}.${key}`, cast);
        if (found) return found;
      }
    }
  }
  return undefined;
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
