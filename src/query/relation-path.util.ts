import { isPlainObject } from './field-path.util.js';
import type { RelationRules, SearchRules } from './search-params.interface.js';

/**
 * The operators that take a filter on the documents a reference names (`{ members: { $some: { niceName: 'Ada' } } }`):
 * some of them matches, none does, every one does. Rewritten before the engine sees them.
 */
export const RELATION_QUANTIFIERS: ReadonlySet<string> = new Set(['$some', '$none', '$every']);

/** `$some`, `$none` or `$every`. */
export type RelationQuantifier = '$some' | '$none' | '$every';

/** A dotted path that crosses a reference: the reference, and the path in the documents it names. */
export interface RelationCrossing {
  relation: RelationRules;
  /** The path in the referenced documents (`niceName` of `owner.niceName`, `company.name` of `owner.company.name`). */
  rest: string;
}

/**
 * The reference `path` crosses (`owner` of `owner.niceName`), if its first segment is a reference
 * the rules let a search cross (declared `expand` or `filter`, within the depth). The sub-paths of
 * a reference are never fields of the documents themselves (an array of references is not a
 * free-form array there). `members.0` is an element, not a crossing.
 */
export function relationCrossingOf(path: string, rules: SearchRules): RelationCrossing | undefined {
  const dot = path.indexOf('.');
  if (dot <= 0 || !rules.relation || /^\d+$/.test(path.slice(dot + 1))) return undefined;
  const relation = rules.relation(path.slice(0, dot));
  return relation && { relation, rest: path.slice(dot + 1) };
}

/** A position after a reference (`members.0.niceName`): a condition across it holds for some element, never for one at a position. */
export function isPositional(crossing: RelationCrossing): boolean {
  return /^\d+\./.test(crossing.rest);
}

/** Whether a condition holds `$some`, `$none` or `$every`. */
export function isQuantified(condition: unknown): condition is Record<string, unknown> {
  return isPlainObject(condition) && Object.keys(condition).some((key) => RELATION_QUANTIFIERS.has(key));
}
