import type { SearchRules } from './search-params.interface.js';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** `true` for `__proto__`, `constructor` and `prototype`: refused anywhere in client input. */
export function isForbiddenKey(key: string): boolean {
  return FORBIDDEN_KEYS.has(key);
}

/**
 * Whether a client may filter, sort or select on `path`: a schema path, or a sub-path of a
 * free-form one (Mixed, array, map, sub-document), and never a hidden path or below one.
 */
export function isQueryablePath(path: string, rules: SearchRules): boolean {
  const { readable, openPrefixes, hidden } = rules.fields;
  const parts = path.split('.');
  if (parts.some((part) => part === '' || isForbiddenKey(part))) return false;
  // Array positions (`badges.0.name`) address the same field as `badges.name`.
  const field = parts.filter((part) => !/^\d+$/.test(part)).join('.');
  for (const hiddenPath of hidden) {
    if (field === hiddenPath || field.startsWith(`${hiddenPath}.`)) return false;
  }
  return readable.has(field) || openPrefixes.some((prefix) => field.startsWith(`${prefix}.`));
}

/** `true` for `{}`-like objects made by JSON.parse or a query-string parser. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
