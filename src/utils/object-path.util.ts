/** One place in the data of a write that holds a value of a path (`vaccinations.vet` is `vaccinations.0.vet`, `vaccinations.1.vet`...). */
export interface FieldSlot {
  /** The full path, with the positions of array elements (`vaccinations.1.vet`). */
  path: string;
  value: unknown;
  set(value: unknown): void;
}

/** Reads and replaces the value of a field in the data of a write (nested data, or a flat `$set`). */
export interface FieldAccess {
  get(path: string): unknown;
  set(path: string, value: unknown): void;
  /** Every place that holds a value of the schema path `path`, through objects and arrays (of sub-documents). */
  each(path: string): FieldSlot[];
}

/** The value at the dotted path `path` of nested data (`meta.editor`); `undefined` where there is none. */
export function valueAtPath(data: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((value, part) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined), data);
}

/** Access to `data.meta.editor` by the path `meta.editor`. */
export function nestedAccess(data: Record<string, unknown>): FieldAccess {
  return {
    get: (path) => valueAtPath(data, path),
    set(path, value) {
      const parts = path.split('.');
      const parent = parts.slice(0, -1).reduce((object, part) => object[part] as Record<string, unknown>, data);
      parent[parts[parts.length - 1]] = value;
    },
    each: (path) => slotsIn(data, '', path.split('.')),
  };
}

/** Access to the keys of a `$set`, which are already full paths (an array of sub-documents is set whole). */
export function flatAccess(set: Record<string, unknown>): FieldAccess {
  return {
    get: (path) => set[path],
    set: (path, value) => void (set[path] = value),
    each: (path) => Object.keys(set).flatMap((key) => (path === key || path.startsWith(`${key}.`) ? slotsIn(set, '', [key, ...splitRest(path, key)]) : [])),
  };
}

function splitRest(path: string, key: string): string[] {
  return path === key ? [] : path.slice(key.length + 1).split('.');
}

/** The slots of `parts` below `holder`; an array on the way is walked element by element. */
function slotsIn(holder: Record<string, unknown>, prefix: string, parts: string[]): FieldSlot[] {
  const [part, ...rest] = parts;
  if (!holder || typeof holder !== 'object' || !Object.hasOwn(holder, part)) return [];
  const path = `${prefix}${part}`;
  const value = holder[part];
  if (rest.length === 0) return [{ path, value, set: (next) => void (holder[part] = next) }];
  if (Array.isArray(value)) {
    return value.flatMap((element, index) =>
      element && typeof element === 'object' ? slotsIn(element as Record<string, unknown>, `${path}.${index}.`, rest) : [],
    );
  }
  return value && typeof value === 'object' ? slotsIn(value as Record<string, unknown>, `${path}.`, rest) : [];
}

/** Deletes the field at `parts` (a split dotted path) from a raw document, through arrays of sub-documents. */
export function deletePath(target: Record<string, unknown>, parts: readonly string[]): void {
  const [head, ...rest] = parts;
  if (rest.length === 0) {
    delete target[head];
    return;
  }
  const next = target[head];
  if (Array.isArray(next)) next.forEach((item) => item && typeof item === 'object' && deletePath(item, rest));
  else if (next && typeof next === 'object') deletePath(next as Record<string, unknown>, rest);
}

/**
 * A copy of checked data whose objects and arrays are new (at every depth) and whose other values
 * (ObjectIds, Dates, Buffers) are the same: one per document of a bulk change, so that a hook that
 * changes its data in place changes one document's.
 */
export function copyData<V>(value: V): V {
  if (Array.isArray(value)) return value.map(copyData) as V;
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, copyData(item)])) as V;
  }
  return value;
}
