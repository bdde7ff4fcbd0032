import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isForbiddenKey } from './field-path.util.js';
import type { ExpandPath, SearchRules } from './search-params.interface.js';

/**
 * Parses what a client asks to expand: `"owner,owner.company"` (the query string's `expand`), or
 * `["owner", "owner.company"]` (a search body's). Each hop must be a reference field the model it
 * starts from declared `expand: true`, visible to the request, within `maxExpandDepth`; at most
 * `maxExpandPaths` paths, every prefix counted. A path named twice, or as the prefix of another, is
 * one path. Refusals are 400 `MR_INVALID_QUERY` naming the path (`expand.owner.company`).
 *
 * @param rules the search rules of the answered model for this request (see `SearchRules.relation`)
 *
 * @publicApi
 */
export function parseExpand(value: unknown, rules: SearchRules): ExpandPath[] {
  const paths = typeof value === 'string' ? value.split(',').map((path) => path.trim()) : Array.isArray(value) ? value : undefined;
  if (!paths || paths.length === 0 || paths.some((path) => typeof path !== 'string' || path === '')) {
    throw ModelRoutesException.invalidQuery('expand', 'expand must be a list of reference fields, like "owner,owner.company" or ["owner"]');
  }
  const { maxExpandDepth, maxExpandPaths } = rules.search;
  const roots: ExpandPath[] = [];
  let count = 0;
  for (const path of paths as string[]) {
    const fields = path.split('.');
    if (fields.length > maxExpandDepth) {
      throw ModelRoutesException.invalidQuery(`expand.${path}`, `'${path}' crosses ${fields.length} references; at most ${maxExpandDepth} may be expanded in a row`);
    }
    let level = roots;
    let levelRules: SearchRules = rules;
    for (const [index, field] of fields.entries()) {
      const at = fields.slice(0, index + 1).join('.');
      const relation = isForbiddenKey(field) ? undefined : levelRules.relation?.(field);
      if (!relation?.expand) throw ModelRoutesException.invalidQuery(`expand.${at}`, `Cannot expand '${at}': not a reference field that may be expanded`);
      let node = level.find((candidate) => candidate.field === field);
      if (!node) {
        if (++count > maxExpandPaths) throw ModelRoutesException.invalidQuery('expand', `expand names more than ${maxExpandPaths} paths`);
        node = { field, path: at, children: [] };
        level.push(node);
      }
      level = node.children;
      levelRules = relation.target;
    }
  }
  return roots;
}
