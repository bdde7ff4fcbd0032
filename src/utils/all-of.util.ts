/**
 * Every filter given, ANDed: merged into one object where they name no common key (the shape
 * every engine plans best; FerretDB v1 pushes down a top-level equality, nothing under `$and`),
 * else under `$and`, so that no condition ever replaces another (a client's filter never replaces
 * a scope's).
 */
export function allOf(...filters: Array<Record<string, unknown> | undefined>): Record<string, unknown> {
  const given = filters.filter((filter): filter is Record<string, unknown> => filter !== undefined && Object.keys(filter).length > 0);
  if (given.length <= 1) return given[0] ?? {};
  const keys = new Set<string>();
  for (const filter of given) {
    for (const key of Object.keys(filter)) {
      if (keys.has(key)) return { $and: given };
      keys.add(key);
    }
  }
  return Object.assign({}, ...given);
}
