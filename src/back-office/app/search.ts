import type { Envelope } from './api.js';
import type { AppContext } from './context.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import type { Doc } from './api-wire.js';
import type { RouteAt } from './routes.js';
import { toBody, toQueryString, type SearchSpec } from './search-query.js';
import { valueAt } from './text.js';

/** A function that runs a search on one search route, if the resource has one enabled. */
export type Searcher = (spec: SearchSpec) => Promise<Envelope>;

/** The resource's own search (`GET /companies`, else `POST /companies`). */
export function resourceSearch(context: AppContext, resource: ResourceMetadata): Searcher | undefined {
  return searcher(context, { resource }, resource.routes.includes('search') && 'search', resource.routes.includes('searchPost') && 'searchPost');
}

/** The documents of `source` whose `field` references the target `id` (`GET /user/<id>/companies/owner`). */
export function reverseSearch(context: AppContext, source: ResourceMetadata, field: string, target: ResourceMetadata, id: string): Searcher | undefined {
  const relation = target.referencedBy.find((entry) => entry.resource === source.name && entry.field === field);
  if (!relation) return undefined;
  return searcher(context, { resource: target, id, source, field }, relation.routes.includes('reverse') && 'reverse', relation.routes.includes('reversePost') && 'reversePost');
}

/** The search through the `GET` route when it is enabled, else through the `POST` one. */
function searcher(context: AppContext, at: RouteAt, get: 'search' | 'reverse' | false, post: 'searchPost' | 'reversePost' | false): Searcher | undefined {
  if (get) return (spec) => context.api.search(context.api.routeUrl(get, at), toQueryString(spec));
  if (post) return async (spec) => (await context.api.call<Envelope>(post, at, { body: toBody(spec) })).body;
  return undefined;
}

/**
 * The documents that the reference `fields` of `documents` point to, by identifier, for their
 * names and links: one search per target resource (`_id` in the identifiers). A search that
 * fails, or a target without one, leaves the identifiers to show.
 */
export async function referencedDocuments(context: AppContext, fields: FieldMetadata[], documents: Doc[]): Promise<Map<string, Doc>> {
  const byTarget = new Map<string, Set<string>>();
  for (const field of fields) {
    if (field.type !== 'reference' && field.type !== 'references') continue;
    const ids = byTarget.get(field.target!) ?? new Set<string>();
    byTarget.set(field.target!, ids);
    for (const document of documents) {
      const value = valueAt(document, field.path);
      for (const id of Array.isArray(value) ? value : value ? [value] : []) ids.add(String(id));
    }
  }
  const found = new Map<string, Doc>();
  await Promise.all(
    [...byTarget].map(async ([name, ids]) => {
      const target = context.resourceNamed(name);
      const search = target && resourceSearch(context, target);
      if (!search || !ids.size) return;
      try {
        for (const document of (await search({ filter: { _id: { $in: [...ids] } }, limit: Math.min(ids.size, 100) })).result) found.set(String(document._id), document);
      } catch {
        // The names are a comfort: without them the identifiers show.
      }
    }),
  );
  return found;
}
