import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';

/**
 * The search limits in force where neither `forRoot` nor a resource sets them.
 *
 * @publicApi
 */
export const DEFAULT_SEARCH_OPTIONS: Readonly<ResolvedSearchOptions> = Object.freeze({
  defaultLimit: 20,
  maxLimit: 100,
  maxSkip: 10_000,
  maxRegexLength: 256,
  allowRegex: true,
  maxQueryDepth: 8,
  maxQueryNodes: 1000,
  maxTimeMS: 5000,
  maxExpandDepth: 2,
  maxExpandPaths: 6,
  maxRelationIds: 1000,
  count: 'exact',
  estimateLimit: 1000,
  exportMaxRows: 100_000,
  exportMaxTimeMS: 120_000,
  importMaxRows: 10_000,
  importMaxBytes: 10 * 1024 * 1024,
  importMaxRowBytes: 64 * 1024,
  importBodyTimeout: 30_000,
  bulkMaxDocuments: 1000,
});
