import type { FieldRules } from '../metadata/field-rules.interface.js';
import type { WriteRules } from './write-body.validator.js';

/** The field rules of one element of an array of sub-documents, its paths relative to the element (`date` for `vaccinations.date`). */
export type ElementRules = WriteRules['fields'] & Pick<FieldRules, 'writeOnly'>;

/**
 * The rules a body of an element route (`POST /pet/:pet_id/vaccinations`) is checked and merged
 * with: those of the array's elements in a write of the whole document, their paths made relative
 * to the element, and its `_id` server-owned (the library gives a new element its `_id`).
 */
export function elementRules(fields: FieldRules, field: string): ElementRules {
  const prefix = `${field}.`;
  const inside = (paths: Iterable<string>) => new Set([...paths].filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length)));
  return {
    writable: inside(fields.writable),
    protected: new Set(['_id', ...inside(fields.protected)]),
    hidden: inside(fields.hidden),
    writeOnly: inside(fields.writeOnly),
    openPrefixes: [...inside(fields.openPrefixes)],
    objects: inside(fields.objects),
    documentArrays: inside(fields.documentArrays),
  };
}
