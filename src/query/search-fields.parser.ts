/** The `sort` and `select` of a search (and of an expanded reverse path), checked against the fields a request may see. */
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { holdsHiddenPath, isForbiddenKey, isPlainObject, isQueryablePath } from './field-path.util.js';
import { relationCrossingOf } from './relation-path.util.js';
import type { SearchRules } from './search-params.interface.js';

const SORT_DIRECTIONS = new Map<string, 1 | -1>([
  ['1', 1],
  ['-1', -1],
  ['asc', 1],
  ['desc', -1],
  ['ascending', 1],
  ['descending', -1],
]);

/** `{ employees: -1, niceName: 1 }`, `"-employees niceName"` or `"-employees,niceName"`. */
export function parseSort(value: unknown, rules: SearchRules, at = 'sort'): Record<string, 1 | -1> {
  const entries: Array<[string, unknown]> =
    typeof value === 'string'
      ? splitList(value).map((item) => (item.startsWith('-') ? [item.slice(1), -1] : [item.replace(/^\+/, ''), 1]))
      : isPlainObject(value)
        ? Object.entries(value)
        : [];
  if (entries.length === 0) throw ModelRoutesException.invalidQuery(at, 'sort must be an object like {"field": -1} or a string like "-field"');
  const sort: Record<string, 1 | -1> = {};
  for (const [field, direction] of entries) {
    // Sorting by the referenced documents' fields would need them all: refused, whatever the field.
    if (relationCrossingOf(field, rules))
      throw ModelRoutesException.invalidQuery(`${at}.${field}`, `Sorting by a referenced field ('${field}') is not supported`);
    assertQueryable(field, at, rules);
    // Ordering by a field that holds a hidden one would order by the hidden value.
    if (holdsHiddenPath(field, rules.fields.hidden)) {
      throw ModelRoutesException.invalidQuery(`${at}.${field}`, `Cannot sort by '${field}' as a whole; sort by its fields`);
    }
    const parsed = typeof direction === 'number' || typeof direction === 'string' ? SORT_DIRECTIONS.get(String(direction)) : undefined;
    if (parsed === undefined)
      throw ModelRoutesException.invalidQuery(`${at}.${field}`, 'sort direction must be 1, -1, "asc", "desc", "ascending" or "descending"');
    sort[field] = parsed;
  }
  return sort;
}

/** `["niceName", "owner"]`, `"niceName owner"` or `"niceName,owner"`. */
export function parseSelect(value: unknown, rules: SearchRules): string[] {
  const fields = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : undefined;
  if (!fields || fields.length === 0 || fields.some((field) => typeof field !== 'string')) {
    throw ModelRoutesException.invalidQuery('select', 'select must be a list of field names');
  }
  for (const field of fields as string[]) assertQueryable(field, 'select', rules);
  return fields as string[];
}

function assertQueryable(field: string, parameter: string, rules: SearchRules): void {
  if (isForbiddenKey(field) || !isQueryablePath(field, rules)) {
    throw ModelRoutesException.invalidQuery(`${parameter}.${field}`, `Unknown field '${field}' in ${parameter.split('.').pop()}`);
  }
}

function splitList(value: string): string[] {
  return value.split(/[\s,]+/).filter(Boolean);
}
