/**
 * References as the routes answer them with `expand` (issue 25): a reference field holds an
 * identifier, or, where the request expanded it, the referenced document (`null` where it is
 * gone; an array of references keeps the documents found). What the page asks to expand, and how it
 * reads a value of either shape. A pure module, unit-tested without a browser.
 */
import { ApiError, type Doc } from './api-wire.js';
import type { FieldMetadata } from './metadata.js';

/**
 * The fields among `fields` the page asks to expand: references (or arrays of them) the metadata
 * says are `expandable`, the first `max` of them (the resource's `maxExpandPaths`; the page looks
 * the others up).
 */
export function expandPaths(fields: readonly FieldMetadata[], max = Infinity): string[] {
  return fields
    .filter((field) => field.expandable && (field.type === 'reference' || field.type === 'references'))
    .map((field) => field.path)
    .slice(0, max);
}

/** The identifier a reference value names: the value itself, or an expanded document's `_id`; `undefined` for none (or a document gone). */
export function referenceId(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'object') {
    const id = (value as Doc)._id;
    return id === undefined || id === null ? undefined : String(id);
  }
  return String(value);
}

/** The identifiers a reference field's value names, for a single reference or an array of them, whatever their shape. */
export function referenceIds(value: unknown): string[] {
  return (Array.isArray(value) ? value : [value]).map(referenceId).filter((id): id is string => id !== undefined);
}

/** Adds to `into` every document expanded in place in the `fields` of `documents`, by identifier. */
export function collectExpanded(fields: readonly FieldMetadata[], documents: readonly Doc[], into: Map<string, Doc>): Map<string, Doc> {
  for (const field of fields) {
    if (field.type !== 'reference' && field.type !== 'references') continue;
    for (const document of documents) {
      const value = document[field.path];
      for (const item of Array.isArray(value) ? value : [value]) {
        const id = item !== null && typeof item === 'object' ? referenceId(item) : undefined;
        if (id !== undefined) into.set(id, item as Doc);
      }
    }
  }
  return into;
}

/**
 * What a read with `expand` says of the references of the same document read without it (the
 * form's, whose `ETag` writes send): the documents found, and the identifiers it found no document
 * for (gone, or not readable: shown as an identifier without a link, and not looked up again).
 * Read at once, the two answers may be of two versions: an identifier that came in between is
 * then shown without its name.
 */
export function expandedReferences(fields: readonly FieldMetadata[], own: Doc, expanded: Doc): { found: Map<string, Doc>; missing: Set<string> } {
  const expandedFields = fields.filter((field) => field.expandable && field.path in expanded);
  const found = collectExpanded(expandedFields, [expanded], new Map());
  const missing = new Set<string>();
  for (const field of expandedFields) for (const id of referenceIds(own[field.path])) if (!found.has(id)) missing.add(id);
  return { found, missing };
}

/**
 * Whether a search or read failed because of its `expand` alone (a 400 naming `expand`): a
 * reference the metadata lists but the request's serialization groups do not see. The page then
 * reads without it, as it did before `expand`.
 */
export function refusedExpand(error: unknown): boolean {
  return (
    error instanceof ApiError && error.status === 400 && error.details.some((detail) => detail.path === 'expand' || Boolean(detail.path?.startsWith('expand.')))
  );
}
