/**
 * What the metadata's fields say about where a field shows and how it filters: the tree flattened,
 * a list's columns, and a list's search filter from the page's parameters. A pure module,
 * unit-tested without a browser.
 */
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import { containing, type Condition } from './search-query.js';
import { fieldLabel } from './text.js';

const COLUMN_TYPES = new Set(['string', 'number', 'boolean', 'date', 'reference', 'objectId']);
const MAX_COLUMNS = 6;

/** Every field of a tree, nested ones included, in order. */
export function flatten(fields: FieldMetadata[]): FieldMetadata[] {
  return fields.flatMap((field) => (field.type === 'object' ? [field, ...flatten(field.fields ?? [])] : [field]));
}

/**
 * The label field, then the first scalar fields, up to six. Never the mark of soft delete: every
 * document a list shows lives, so its `deletedAt` is empty (the trash shows it: `trashColumns`).
 */
export function listColumns(resource: ResourceMetadata): FieldMetadata[] {
  const candidates = resource.fields.filter(
    (field) => COLUMN_TYPES.has(field.type) && !field.writeOnly && field.path !== '_id' && !isDeletionMark(resource, field),
  );
  const label = candidates.find((field) => field.path === resource.labelField);
  const rest = candidates.filter((field) => field !== label);
  return [...(label ? [label] : []), ...rest].slice(0, MAX_COLUMNS);
}

/** The columns of a resource's trash: its list's, then when each document was deleted (the field soft delete marks it in). */
export function trashColumns(resource: ResourceMetadata): FieldMetadata[] {
  const mark = resource.fields.find((field) => isDeletionMark(resource, field));
  return [...listColumns(resource), ...(mark ? [mark] : [])];
}

/** Whether `field` is the one soft delete marks a deleted document in (`deletedAt`). */
export function isDeletionMark(resource: Pick<ResourceMetadata, 'softDelete'>, field: FieldMetadata): boolean {
  return field.path === resource.softDelete?.field;
}

/** One filter of a list's panel: the field it filters on, and the words of its input's label. */
export interface ListFilter {
  /** A column of the list, or, across a reference, the target's field at its dotted path (`owner.niceName`). */
  field: FieldMetadata;
  /** `Employees`; across a reference, `Nice name of owner`. */
  label: string;
}

/**
 * The filters of a list's panel: one per column, then, for each reference field declared
 * filterable, one per field of the target that its own list filters on and the metadata allows
 * (`filterFields`): text, numbers, dates, enums and booleans, at the dotted path a search takes
 * (`owner.niceName`; through an array of references, a condition on some element).
 */
export function listFilters(resource: ResourceMetadata, columns: FieldMetadata[], resourceNamed: (name: string) => ResourceMetadata | undefined): ListFilter[] {
  const own = columns.map((field) => ({ field, label: fieldLabel(field) }));
  const across = resource.fields.flatMap((reference) => {
    const target = reference.filterable && reference.target ? resourceNamed(reference.target) : undefined;
    if (!target || (reference.type !== 'reference' && reference.type !== 'references')) return [];
    const allowed = new Set(reference.filterFields ?? []);
    return listColumns(target)
      .filter((field) => allowed.has(field.path))
      .map((field) => ({
        field: { ...field, path: `${reference.path}.${field.path}` },
        label: `${fieldLabel(field)} of ${fieldLabel(reference).toLowerCase()}`,
      }));
  });
  return [...own, ...across];
}

/** The page parameters that hold `field`'s filter: its value, or the two ends of its range. */
export function filterParams(field: FieldMetadata): string[] {
  return field.type === 'number' || field.type === 'date' ? [`${field.path}.min`, `${field.path}.max`] : [field.path];
}

/** The search filter the page's parameters give: a fragment, a range, a value or a reference per field. */
export function filterOf(columns: FieldMetadata[], params: URLSearchParams): Record<string, Condition> {
  const filter: Record<string, Condition> = {};
  for (const field of columns) {
    const value = params.get(field.path);
    if (field.type === 'number' || field.type === 'date') {
      const min = params.get(`${field.path}.min`);
      const max = params.get(`${field.path}.max`);
      if (!min && !max) continue;
      filter[field.path] = {
        ...(min && { $gte: field.type === 'number' ? Number(min) : min }),
        ...(max && { $lte: field.type === 'number' ? Number(max) : `${max}T23:59:59.999Z` }),
      };
    } else if (value) {
      filter[field.path] = field.type === 'string' && !field.enum ? containing(value) : value;
    }
  }
  return filter;
}
