import { referenceId, referenceIds } from './expanded.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';

/** `niceName` → `Nice name`, `address.city` → `City`, `companies` → `Companies`. */
export function humanize(name: string): string {
  const last = name.split('.').pop() ?? name;
  const words = last
    .replace(/^_+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  if (last === '_id') return 'Id';
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What the menu and titles call a resource: its plural path (`Companies`) and its singular (`Company`). */
export function pluralName(resource: ResourceMetadata): string {
  return humanize(resource.plural);
}
export function singularName(resource: ResourceMetadata): string {
  return humanize(resource.path);
}

/** The label of a field: its last segment, humanized. */
export function fieldLabel(field: FieldMetadata): string {
  return humanize(field.path);
}

/** A document's name: its label field's value, else its identifier. */
export function documentLabel(resource: ResourceMetadata, document: Record<string, unknown> | undefined): string {
  if (!document) return '';
  const label = valueAt(document, resource.labelField);
  if (label !== undefined && label !== null && label !== '') return String(label);
  return String(valueAt(document, resource.idField) ?? '');
}

/** The value at a dotted path. */
export function valueAt(document: unknown, path: string): unknown {
  let value: unknown = document;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A value as a table cell shows it. */
export function formatValue(field: FieldMetadata, value: unknown): string {
  if (value === undefined || value === null || value === '') return '';
  switch (field.type) {
    case 'date':
      return formatDate(value);
    case 'boolean':
      return value ? 'Yes' : 'No';
    case 'number':
      return typeof value === 'number' ? value.toLocaleString('en') : String(value);
    case 'reference':
      return referenceId(value) ?? '';
    case 'references':
      return Array.isArray(value) ? referenceIds(value).join(', ') : String(value);
    case 'array':
      return Array.isArray(value) ? value.map(String).join(', ') : String(value);
    case 'file':
      return (value as { name?: string }).name ?? '';
    case 'files':
      return Array.isArray(value) ? `${value.length} file${value.length === 1 ? '' : 's'}` : '';
    case 'object':
    case 'json':
      return JSON.stringify(value);
    default:
      return String(value);
  }
}

function formatDate(value: unknown): string {
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) return String(value);
  const iso = date.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** `2048` → `2 KB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}
