import type { CountPolicy } from '../metadata/count-policies.js';

/**
 * Limits applied to every search route (`GET|POST /<plural>` and the reverse reference routes).
 *
 * @publicApi
 */
export interface SearchOptions {
  /** `limit` when the client sends none. Default 20. */
  defaultLimit?: number;
  /** Largest `limit` applied; a larger request is clamped and `status.limit` reports the value used. Default 100. */
  maxLimit?: number;
  /** Largest `skip` accepted; beyond it the client gets a 400. Default 10000. */
  maxSkip?: number;
  /** Longest `$regex` pattern accepted, in characters. Default 256. */
  maxRegexLength?: number;
  /** Whether clients may use `$regex` at all. Default true. */
  allowRegex?: boolean;
  /** Deepest nesting of objects and arrays accepted in a query. Default 8. */
  maxQueryDepth?: number;
  /** Most keys and array items accepted in one query. Default 1000. */
  maxQueryNodes?: number;
  /**
   * Time limit of every database operation of the routes (searches, counts, reads and writes), in
   * milliseconds, enforced by the server (`maxTimeMS`). A search that exceeds it is a 422
   * `MR_QUERY_TIMEOUT`. Default 5000.
   */
  maxTimeMS?: number;
  /**
   * Deepest path a client may `expand` (`owner.company` is 2), and deepest chain of references a
   * filter may cross (`owner.company.name` crosses 2). Each hop must be declared expandable (or
   * filterable) by the resource it starts from. Default 2.
   */
  maxExpandDepth?: number;
  /** Most paths one request may expand, every prefix counted (`owner,owner.company` is 2). Default 6. */
  maxExpandPaths?: number;
  /**
   * Most documents the condition on a referenced field may match (`{ "owner.niceName": ... }`): a
   * condition that matches more is a 400 `MR_RELATION_FILTER_TOO_BROAD` naming it, never a cut. Also
   * the most documents an expanded reverse path reads for one answer (`MR_EXPAND_TOO_BROAD`).
   * Default 1000.
   */
  maxRelationIds?: number;
  /**
   * The key of the MAC that binds a keyset cursor (`status.next`, sent back as `after`) to its
   * resource, route, sort and filter: at least 16 characters, the same on every instance of the app.
   * Without it the library's own (public) key is used: a cursor of another search is still refused,
   * but a client could forge one, which is harmless (its values are cast by the schema and compared
   * with the sort's fields only). Set it to make cursors the server's alone.
   */
  cursorSecret?: string;
  /**
   * How a search counts the documents its query matches (`status.match_count`) when the request
   * does not say (`Prefer: count=exact|estimated|none`): `'exact'` counts them (a count
   * query beside the page); `'estimated'` reads the collection's metadata for
   * an unfiltered search and counts at most `estimateLimit` matches of a filtered one; `'none'`
   * leaves `match_count` out. `status.counted` says which one an answer got. Default `'exact'`.
   */
  count?: CountPolicy;
  /**
   * Most matches an `estimated` count of a filtered search counts: below it the count is exact,
   * past it `match_count` is this bound (or `skip` plus the page, if more) with `counted: 'estimated'`.
   * Default 1000.
   */
  estimateLimit?: number;
  /**
   * Most documents one export writes (`GET /<plural>/export`, when its routes are on): a `limit`
   * above it is lowered to it, and an export without `limit` whose search matches more is aborted
   * mid-stream, so that the client never takes a cut file for a whole one. Default 100000.
   */
  exportMaxRows?: number;
  /**
   * Time limit, in milliseconds, of an export's query on the server (`maxTimeMS` of its cursor, the
   * time the database spends on it, not the time the client takes to read). Default 120000.
   */
  exportMaxTimeMS?: number;
  /**
   * Most rows one import takes (`POST /<plural>/import`, when its route is on): a file with more is
   * refused whole, 413 `MR_IMPORT_TOO_LARGE`, nothing written. Default 10000.
   */
  importMaxRows?: number;
  /** Most bytes of an import's body: past it the file is refused whole (413 `MR_IMPORT_TOO_LARGE`), as soon as it is known. Default 10485760 (10 MB). */
  importMaxBytes?: number;
  /**
   * Most bytes of one row of an import (an NDJSON line, an element of a JSON array as JSON; a CSV
   * record counts characters): a larger one refuses the file whole (413 `MR_IMPORT_TOO_LARGE`). Default 65536.
   */
  importMaxRowBytes?: number;
  /**
   * Milliseconds an import waits on its client for the next bytes of its body: past it, 408
   * `MR_REQUEST_TIMEOUT`, nothing written. Also the time an XLSX file has to be read once its last
   * byte has arrived: past it, 400 `MR_INVALID_IMPORT` (a zip whose parts do not end where its
   * directory says can leave the unzipping waiting forever). Default 30000.
   */
  importBodyTimeout?: number;
  /**
   * Most documents one bulk change touches (`PATCH /<plural>` and `DELETE /<plural>`, when their
   * routes are on, and the repository's `updateMany`/`deleteMany`): a filter that matches more is
   * refused whole, 400 `MR_BULK_TOO_LARGE` with the count, nothing written. Default 1000.
   */
  bulkMaxDocuments?: number;
}

/** Search options with every default filled in (`cursorSecret` has none: the library's key is used). */
export type ResolvedSearchOptions = Required<Omit<SearchOptions, 'cursorSecret'>> & Pick<SearchOptions, 'cursorSecret'>;
