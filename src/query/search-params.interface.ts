import type { FieldRules } from '../metadata/field-rules.interface.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';

/**
 * A search, parsed and checked: safe to hand to the repository.
 *
 * @publicApi
 */
export interface SearchParams {
  /** MongoDB filter over schema fields, with allowlisted operators only. */
  filter: Record<string, unknown>;
  limit: number;
  skip: number;
  sort?: Record<string, 1 | -1>;
  /** Fields to return (`_id` always comes back). */
  select?: string[];
}

/** What the parser needs to know about a resource. */
export interface SearchRules {
  fields: Pick<FieldRules, 'readable' | 'openPrefixes' | 'hidden'> & Partial<Pick<FieldRules, 'enums'>>;
  search: ResolvedSearchOptions;
}
