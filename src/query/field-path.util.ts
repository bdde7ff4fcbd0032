import { hasNulCharacter } from '../utils/text.util.js';
import type { SearchRules } from './search-params.interface.js';

/**
 * Keys refused anywhere in client input: those that reach prototypes, and `_bsontype`, with which
 * an object passes for a BSON value (an ObjectId, a Long) and crashes the driver's serializer.
 */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype', '_bsontype']);

/** `true` for `__proto__`, `constructor`, `prototype` and `_bsontype`: refused anywhere in client input. */
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
  if (parts.some((part) => part === '' || isForbiddenKey(part) || hasNulCharacter(part))) return false;
  const field = normalizePath(path);
  if (isUnderAny(field, hidden)) return false;
  return readable.has(field) || openPrefixes.some((prefix) => field.startsWith(`${prefix}.`));
}

/** Array positions (`badges.0.name`) address the same schema field as `badges.name`. */
export function normalizePath(path: string): string {
  return /(^|\.)\d+(\.|$)/.test(path)
    ? path
        .split('.')
        .filter((part) => !/^\d+$/.test(part))
        .join('.')
    : path;
}

/** Whether `path` is one of `roots` or below one of them. */
export function isUnderAny(path: string, roots: Iterable<string>): boolean {
  for (const root of roots) {
    if (path === root || path.startsWith(`${root}.`)) return true;
  }
  return false;
}

/** Whether a hidden path lies below `path` (`meta` holds `meta.token`): such a field cannot be compared or sorted as a whole. */
export function holdsHiddenPath(path: string, hidden: Iterable<string>): boolean {
  const prefix = `${normalizePath(path)}.`;
  for (const hiddenPath of hidden) {
    if (hiddenPath.startsWith(prefix)) return true;
  }
  return false;
}

/** `true` for `{}`-like objects made by JSON.parse or a query-string parser. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
