import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import { isPlainObject } from '../query/field-path.util.js';
import { isQuantified, relationCrossingOf, type RelationQuantifier } from '../query/relation-path.util.js';
import type { RelationRules, SearchParams, SearchRules } from '../query/search-params.interface.js';
import type { RepositoryOf } from './relation-rules.js';

const LOGICAL = new Set(['$and', '$or', '$nor']);

/** What resolving the conditions across references of one search needs. */
export interface RelationFilterContext {
  repositoryOf: RepositoryOf;
  /** Where the route reads (its `readPreference` option), if it says. */
  readPreference?: ReadPreferenceMode;
}

/** One condition across a reference, found in a filter object. */
interface Crossing {
  relation: RelationRules;
  quantifier: RelationQuantifier;
  /** The filter on the referenced documents. */
  filter: Record<string, unknown>;
  /** Where that filter sits in the client's search (`query.owner`, `query.members.$some`), and how its fields are named (`owner.`). */
  at: { path: string; label: string };
  /** The condition as errors name it (`query.owner.niceName`, `query.members.$some`). */
  named: string;
}

/**
 * Rewrites a parsed search's conditions across references (`{ "owner.niceName": ... }`, `{ members:
 * { $some | $none | $every: {...} } }`, checked by `sanitizeFilter` under `rules`) into conditions on
 * the reference itself, in steps: for each condition, ONE `_id`-only query on the referenced
 * collection (inner references first, for `owner.company.name`), bounded by `maxRelationIds + 1` of
 * the searched resource; then `{ owner: { $in: ids } }` (`$none`: `$nin` of them; `$every`: `$nin`
 * of the ids of the referenced documents that do NOT match, so a dangling id counts as matching and
 * an empty array matches). More matches than `maxRelationIds` is a 400 `MR_RELATION_FILTER_TOO_BROAD`
 * naming the condition, never a cut. A search without such conditions comes back as is, at once.
 */
export function resolveRelationFilters(params: SearchParams, rules: SearchRules, context: RelationFilterContext): SearchParams | Promise<SearchParams> {
  if (!rules.relation || !crossesAny(params.filter, rules)) return params;
  const limit = rules.search.maxRelationIds;
  return rewrite(params.filter, rules, { path: 'query', label: '' }, { limit, ...context }).then((filter) =>
    Object.assign({}, params, { filter, sentFilter: params.sentFilter ?? params.filter }),
  );
}

/** Whether a filter holds a condition across a reference, where `rewrite` would find it. */
function crossesAny(filter: unknown, rules: SearchRules): boolean {
  if (!isPlainObject(filter)) return false;
  return Object.entries(filter).some(([key, value]) =>
    LOGICAL.has(key)
      ? Array.isArray(value) && value.some((item) => crossesAny(item, rules))
      : crossingsOf(key, value, rules, { path: 'query', label: '' }).length > 0,
  );
}

/** The conditions across references one key of a filter object holds (none for an ordinary condition). */
function crossingsOf(key: string, value: unknown, rules: SearchRules, at: Crossing['at']): Crossing[] {
  if (key.startsWith('$')) return [];
  const crossing = relationCrossingOf(key, rules);
  if (crossing?.relation.filter) {
    const { relation, rest } = crossing;
    const path = `${at.path}.${relation.field}`;
    return [{ relation, quantifier: '$some', filter: { [rest]: value }, at: { path, label: `${at.label}${relation.field}.` }, named: `${at.path}.${key}` }];
  }
  const relation = isQuantified(value) ? rules.relation?.(key) : undefined;
  if (!relation?.filter) return [];
  return Object.entries(value as Record<string, unknown>).map(([quantifier, filter]) => {
    const path = `${at.path}.${key}.${quantifier}`;
    return { relation, quantifier: quantifier as RelationQuantifier, filter: filter as Record<string, unknown>, at: { path, label: '' }, named: path };
  });
}

async function rewrite(
  filter: Record<string, unknown>,
  rules: SearchRules,
  at: Crossing['at'],
  context: RelationFilterContext & { limit: number },
): Promise<Record<string, unknown>> {
  const kept: Record<string, unknown> = {};
  const resolved: Array<Record<string, unknown>> = [];
  for (const [key, value] of Object.entries(filter)) {
    if (LOGICAL.has(key) && Array.isArray(value)) {
      const items: unknown[] = [];
      // One after the other: the first failure is the same on every run.
      for (const [index, item] of value.entries())
        items.push(isPlainObject(item) ? await rewrite(item, rules, { path: `${at.path}.${key}.${index}`, label: at.label }, context) : item);
      kept[key] = items;
      continue;
    }
    const crossings = crossingsOf(key, value, rules, at);
    if (crossings.length === 0) kept[key] = value;
    for (const crossing of crossings) resolved.push({ [crossing.relation.field]: await conditionOf(crossing, context) });
  }
  // `{ owner: X, "owner.niceName": ... }`: the conditions on one key go under `$and`.
  for (const condition of resolved) {
    const [field] = Object.keys(condition);
    if (field in kept) kept.$and = [...((kept.$and as unknown[] | undefined) ?? []), condition];
    else kept[field] = condition[field];
  }
  return kept;
}

/** The condition on the reference that stands for `crossing`: `{ $in: ids }` or `{ $nin: ids }`. */
async function conditionOf(crossing: Crossing, context: RelationFilterContext & { limit: number }): Promise<Record<string, unknown>> {
  const { relation, quantifier, at, named } = crossing;
  const filter = await rewrite(crossing.filter, relation.target, at, context);
  const target = context.repositoryOf(relation.targetName);
  const ids = await target.matchingObjectIds(filter, context.limit + 1, { readPreference: context.readPreference, outside: quantifier === '$every', at });
  if (ids.length > context.limit) {
    const which = quantifier === '$every' ? 'do not match it' : 'match it';
    const message = `The condition at '${named}' is too broad: more than ${context.limit} referenced documents ${which} (search.maxRelationIds); narrow it`;
    throw new ModelRoutesException('MR_RELATION_FILTER_TOO_BROAD', message, [{ path: named, message }]);
  }
  return quantifier === '$some' ? { $in: ids } : { $nin: ids };
}
