import type { Model } from 'mongoose';
import { ModelRoutesException, type ErrorDetail } from '../errors/model-routes.exception.js';
import { article } from '../utils/naming.util.js';

interface DriverError {
  name?: string;
  code?: unknown;
  message?: string;
  keyValue?: Record<string, unknown>;
  keyPattern?: Record<string, unknown>;
  path?: string;
  kind?: string;
  value?: unknown;
}

/**
 * Turns what a create or an update failed with into the answer a client can act on, or returns
 * `undefined` for failures that are not about the values written (left to the error filter):
 *
 * - a value the schema cannot cast: 400 `MR_VALIDATION_FAILED` at its path;
 * - a unique index refusing a value: 409 `MR_DUPLICATE_KEY` naming the field, on MongoDB (from
 *   `keyValue`) and on FerretDB (which names the index in its message on update, and nothing on
 *   create: the unique indexes of the model are then asked which one holds the value);
 * - a sub-field written below a value that is not an object (`PathNotViable`): 400 at its path.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
export async function writeError(error: unknown, model: Model<any>, written: Record<string, unknown>): Promise<ModelRoutesException | undefined> {
  const failure = (error ?? {}) as DriverError;
  if (failure.name === 'CastError') {
    const path = mapValuePath(failure.path ?? '', (failure as { value?: unknown }).value, written);
    return ModelRoutesException.validationFailed(path, `cannot be converted to ${failure.kind ?? 'its type'}`);
  }
  if (isDuplicateKey(failure)) {
    const fields = await duplicateFields(failure, model, written);
    const a = `${article(model.modelName)[0].toUpperCase()}${article(model.modelName).slice(1)} ${model.modelName}`;
    const message = fields.length ? `${a} with this ${fields.join(', ')} already exists` : `${a} with the same value of a unique field already exists`;
    const details: ErrorDetail[] = fields.map((path) => ({ path, message: 'must be unique' }));
    return new ModelRoutesException('MR_DUPLICATE_KEY', message, details);
  }
  if (failure.code === 28) {
    const path = /Cannot create field '[^']*' in element \{([^:]+):/.exec(failure.message ?? '')?.[1];
    return ModelRoutesException.validationFailed(path ?? 'body', 'the stored value is not an object, so it has no sub-fields to set; send the whole object');
  }
  return undefined;
}

/**
 * A Map value's cast error names the schema's path (`limits.$*`): the path written with that value
 * (`limits.daily`, or the key of a whole map written at `limits`) says which one failed.
 */
function mapValuePath(path: string, value: unknown, written: Record<string, unknown>): string {
  if (!path.includes('$*')) return path;
  const pattern = new RegExp(
    `^${path
      .split('$*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^.]+')}$`,
  );
  for (const [key, item] of Object.entries(written)) {
    if (pattern.test(key) && item === value) return key;
    if (item && typeof item === 'object') {
      const entry = Object.entries(item).find(([name, inner]) => inner === value && pattern.test(`${key}.${name}`));
      if (entry) return `${key}.${entry[0]}`;
    }
  }
  return path.replace(/\.\$\*.*$/, '');
}

function isDuplicateKey(error: DriverError): boolean {
  if (error.code === 11000 || error.code === 11001) return true;
  // FerretDB v1 reports a duplicate on update as an internal error carrying the backend's message.
  return error.name === 'MongoServerError' && /UNIQUE constraint failed|duplicate key value violates unique constraint/.test(error.message ?? '');
}

interface UniqueIndex {
  name: string;
  fields: string[];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
function uniqueIndexes(model: Model<any>): UniqueIndex[] {
  return model.schema
    .indexes()
    .filter(([, options]) => (options as { unique?: unknown } | undefined)?.unique)
    .map(([keys, options]) => ({
      fields: Object.keys(keys),
      name:
        (options as { name?: string }).name ??
        Object.entries(keys)
          .map(([field, direction]) => `${field}_${String(direction)}`)
          .join('_'),
    }));
}

/** The fields of the unique index that refused the write, by the cheapest clue available. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
async function duplicateFields(error: DriverError, model: Model<any>, written: Record<string, unknown>): Promise<string[]> {
  if (error.keyValue && Object.keys(error.keyValue).length) return Object.keys(error.keyValue);
  if (error.keyPattern && Object.keys(error.keyPattern).length) return Object.keys(error.keyPattern);
  const indexes = uniqueIndexes(model);
  // MongoDB: `index: slug_1 dup key`; FerretDB: `index 'posts_4c2edfdc_slug_1'` (collection and hash first).
  const tokens = (error.message ?? '').split(/[\s'":]+/);
  const named = indexes.find((index) => tokens.some((token) => token === index.name || token.endsWith(`_${index.name}`)));
  if (named) return named.fields;
  for (const index of indexes) {
    const values = index.fields.map((field) => written[field]);
    if (values.some((value) => value === undefined)) continue;
    const filter = Object.fromEntries(index.fields.map((field, i) => [field, values[i]]));
    const holder = await model.exists(filter).catch(() => null);
    if (holder) return index.fields;
  }
  return [];
}
