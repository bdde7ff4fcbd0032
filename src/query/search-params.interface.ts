import type { FieldRules } from '../metadata/field-rules.interface.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import type { CountPolicy } from '../metadata/count-policies.js';

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
  /** References to answer as the documents they name (`?expand=owner,owner.company`), as a tree. */
  expand?: ExpandPath[];
  /** Continue after this cursor (`status.next` of the previous page of the same sorted search), as the client sent it. */
  after?: unknown;
  /**
   * The filter as parsed, before its conditions across references were resolved into `filter`:
   * what a cursor is bound to (the ids those conditions match may change between pages). Absent: `filter`.
   */
  sentFilter?: Record<string, unknown>;
  /**
   * How to count the matches (`status.match_count`); default: the request's `Prefer: count=` on a
   * generated route, else the resource's `search.count`.
   */
  count?: CountPolicy;
  /**
   * An export that reads every match (the client sent no `limit`): a search that matches more
   * than `limit` documents is refused (`MR_EXPORT_TOO_LARGE`) instead of cut at `limit`.
   */
  everyMatch?: boolean;
}

/**
 * One reference a client asked to expand, and the references to expand in the documents it names
 * (`owner` with `company` for `expand=owner.company`).
 *
 * @publicApi
 */
export interface ExpandPath {
  /** The reference field, relative to the documents it is read from (`company`). */
  field: string;
  /** The path from the answered document (`owner.company`), as errors name it. */
  path: string;
  children: ExpandPath[];
  /** A reverse path (`companies`): the documents of `source` whose reference `field` names the document. */
  reverse?: { source: string; field: string };
  /** A reverse path's documents per document: at most this many... */
  limit?: number;
  /** ...in this order (`_id` breaks ties). */
  sort?: Record<string, 1 | -1>;
}

/**
 * A reference field a search may cross (expand it, or filter on its target's fields), as the
 * parser needs it: what the field's resource declared, and the rules of its target for this request.
 */
export interface RelationRules {
  field: string;
  /** An array of references. */
  isArray: boolean;
  /** Declared `expand: true`. */
  expand: boolean;
  /** Declared `filter: true`. */
  filter: boolean;
  /** The referenced model's name (of a reverse path: the referencing one's). */
  targetName: string;
  /** A reverse path (`expandReverse`): the referencing resource and its reference field; expand only. */
  reverse?: { source: string; field: string };
  /** The referenced model's search rules for this request (its hidden fields and view; its own relations, one level less deep). */
  target: SearchRules;
}

/** What the parser needs to know about a resource. */
export interface SearchRules {
  fields: Pick<FieldRules, 'readable' | 'openPrefixes' | 'hidden'> & Partial<Pick<FieldRules, 'enums'>>;
  search: ResolvedSearchOptions;
  /**
   * The reference field `field` as a search may cross it, if it is one that declared `expand` or
   * `filter` and the depth left allows it; without this function, no reference can be crossed.
   */
  relation?(field: string): RelationRules | undefined;
}
