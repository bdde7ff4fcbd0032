/**
 * A field's value as its form control holds it, and back as the JSON value to send. A pure module,
 * unit-tested without a browser.
 */
import type { FieldMetadata } from './metadata.js';

/** A value as its control holds it. */
export function toInput(field: FieldMetadata, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.type === 'date') return String(value).slice(0, 10);
  if (field.type === 'array')
    return Array.isArray(value) ? value.map((item) => (field.items === 'date' ? String(item).slice(0, 10) : String(item))).join('\n') : '';
  if (field.type === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

/** What a control holds, as the JSON value to send; a JSON field that does not parse is sent as its text, for the server to refuse by name. */
export function fromInput(field: FieldMetadata, text: string): unknown {
  switch (field.type) {
    case 'number':
      return Number(text);
    case 'array':
      return text
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean)
        .map((item) => (field.items === 'number' ? Number(item) : field.items === 'boolean' ? item === 'true' : item));
    case 'json':
      try {
        return JSON.parse(text);
      } catch {
        return text;
      }
    default:
      return text;
  }
}

/** Sets `value` at the dotted `path` of a body being built (`address.city`), making the objects on the way. */
export function setAt(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
  node[parts[parts.length - 1]] = value;
}
