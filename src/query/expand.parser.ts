import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isForbiddenKey, isPlainObject } from './field-path.util.js';
import { parseSort } from './search-fields.parser.js';
import type { ExpandPath, RelationRules, SearchRules } from './search-params.interface.js';

/**
 * Parses what a client asks to expand: `"owner,owner.company"` (the query string's `expand`), or
 * `["owner", "owner.company"]` (a search body's), where a reverse path may come with its page per
 * document: `{ "path": "companies", "limit": 5, "sort": "-employees" }`. Each hop must be a reference field the model it
 * starts from declared `expand: true`, visible to the request, within `maxExpandDepth`; at most
 * `maxExpandPaths` paths, every prefix counted. A path named twice, or as the prefix of another, is
 * one path. Refusals are 400 `MR_INVALID_QUERY` naming the path (`expand.owner.company`).
 *
 * @param rules the search rules of the answered model for this request (see `SearchRules.relation`)
 *
 * @publicApi
 */
export function parseExpand(value: unknown, rules: SearchRules): ExpandPath[] {
  const entries = typeof value === 'string' ? value.split(',').map((path) => path.trim()) : Array.isArray(value) ? value : undefined;
  if (!entries || entries.length === 0 || entries.some((entry) => !isEntry(entry))) {
    throw ModelRoutesException.invalidQuery(
      'expand',
      'expand must be a list of reference fields, like "owner,owner.company" or ["owner", { "path": "companies", "limit": 5 }]',
    );
  }
  const { maxExpandDepth, maxExpandPaths } = rules.search;
  const roots: ExpandPath[] = [];
  let count = 0;
  for (const entry of entries as Entry[]) {
    const path = typeof entry === 'string' ? entry : entry.path;
    const fields = path.split('.');
    if (fields.length > maxExpandDepth) {
      throw ModelRoutesException.invalidQuery(
        `expand.${path}`,
        `'${path}' crosses ${fields.length} references; at most ${maxExpandDepth} may be expanded in a row`,
      );
    }
    let level = roots;
    let levelRules: SearchRules = rules;
    let node: ExpandPath | undefined;
    let relation: RelationRules | undefined;
    for (const [index, field] of fields.entries()) {
      const at = fields.slice(0, index + 1).join('.');
      relation = isForbiddenKey(field) ? undefined : levelRules.relation?.(field);
      if (!relation?.expand) throw ModelRoutesException.invalidQuery(`expand.${at}`, `Cannot expand '${at}': not a reference field that may be expanded`);
      node = level.find((candidate) => candidate.field === field);
      if (!node) {
        if (++count > maxExpandPaths) throw ModelRoutesException.invalidQuery('expand', `expand names more than ${maxExpandPaths} paths`);
        node = { field, path: at, children: [], ...(relation.reverse && { reverse: relation.reverse }) };
        level.push(node);
      }
      level = node.children;
      levelRules = relation.target;
    }
    if (typeof entry !== 'string') pageOf(entry, node!, relation!, rules);
  }
  return roots;
}

/** One entry of a body's `expand`: a path, or a reverse path with its page (`{ path, limit, sort }`). */
type Entry = string | { path: string; limit?: unknown; sort?: unknown };

function isEntry(entry: unknown): entry is Entry {
  if (typeof entry === 'string') return entry !== '';
  if (!isPlainObject(entry) || typeof entry.path !== 'string' || entry.path === '') return false;
  return Object.keys(entry).every((key) => key === 'path' || key === 'limit' || key === 'sort');
}

/** The page of a reverse path's documents per document: `limit` (at most `maxLimit`) and `sort`. */
function pageOf(entry: Exclude<Entry, string>, node: ExpandPath, relation: RelationRules, rules: SearchRules): void {
  const at = `expand.${entry.path}`;
  if (!relation.reverse && (entry.limit !== undefined || entry.sort !== undefined)) {
    throw ModelRoutesException.invalidQuery(at, `'${entry.path}' is a reference to one document each: limit and sort go with a reverse path`);
  }
  if (entry.limit !== undefined) {
    const { maxLimit } = rules.search;
    if (!Number.isSafeInteger(entry.limit) || (entry.limit as number) < 1)
      throw ModelRoutesException.invalidQuery(`${at}.limit`, 'limit must be an integer of at least 1');
    node.limit = Math.min(entry.limit as number, maxLimit);
  }
  if (entry.sort !== undefined) node.sort = parseSort(entry.sort, relation.target, `${at}.sort`);
}
