import { SEARCH_PREFER, type Envelope, type Tagged } from './api.js';
import type { AppContext } from './context.js';
import { collectExpanded, expandedReferences, expandPaths, referenceId, refusedExpand } from './expanded.js';
import { flatten } from './field-rules.js';
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
  return searcher(
    context,
    { resource: target, id, source, field },
    relation.routes.includes('reverse') && 'reverse',
    relation.routes.includes('reversePost') && 'reversePost',
  );
}

/** The search through the `GET` route when it is enabled, else through the `POST` one. */
function searcher(context: AppContext, at: RouteAt, get: 'search' | 'reverse' | false, post: 'searchPost' | 'reversePost' | false): Searcher | undefined {
  if (get) return (spec) => context.api.search(context.api.routeUrl(get, at), toQueryString(spec));
  if (post) return async (spec) => (await context.api.call<Envelope>(post, at, { body: toBody(spec), prefer: SEARCH_PREFER })).body;
  return undefined;
}

/**
 * The documents that the reference `fields` of `documents` point to, by identifier, for their
 * names and links: those expanded in place (the documents came with `expand`), those already
 * `known`, and the others with one search per target resource (`_id` in the identifiers), never
 * one per document. Identifiers in `missing` are known to name no document, and not looked up. A
 * search that fails, or a target without one, leaves the identifiers to show. Answers `known`,
 * with what it found added.
 */
export async function referencedDocuments(
  context: AppContext,
  fields: FieldMetadata[],
  documents: Doc[],
  known: Map<string, Doc> = new Map(),
  missing: ReadonlySet<string> = new Set(),
): Promise<Map<string, Doc>> {
  collectExpanded(fields, documents, known);
  const byTarget = new Map<string, Set<string>>();
  for (const field of fields) {
    if (field.type !== 'reference' && field.type !== 'references') continue;
    const ids = byTarget.get(field.target!) ?? new Set<string>();
    byTarget.set(field.target!, ids);
    for (const document of documents) {
      const value = valueAt(document, field.path);
      for (const item of Array.isArray(value) ? value : [value]) {
        // An expanded document is known already; a `null` in its place names no identifier to look up.
        if (typeof item === 'object') continue;
        const id = referenceId(item);
        if (id !== undefined && !known.has(id) && !missing.has(id)) ids.add(id);
      }
    }
  }
  await Promise.all(
    [...byTarget].map(async ([name, ids]) => {
      const target = context.resourceNamed(name);
      const search = target && resourceSearch(context, target);
      if (!search || !ids.size) return;
      try {
        for (const document of (await search({ filter: { _id: { $in: [...ids] } }, limit: Math.min(ids.size, 100) })).result)
          known.set(String(document._id), document);
      } catch {
        // The names are a comfort: without them the identifiers show.
      }
    }),
  );
  return known;
}

/**
 * A search of the page's own (a list), with `expand` when it asks for it; asked again without it
 * when the route refuses the `expand` alone (see `refusedExpand`), as the page read before expand.
 */
export async function searchExpanding(search: Searcher, spec: SearchSpec): Promise<{ envelope: Envelope; expanded: string[] }> {
  if (!spec.expand?.length) return { envelope: await search(spec), expanded: [] };
  try {
    return { envelope: await search(spec), expanded: spec.expand };
  } catch (error) {
    if (!refusedExpand(error)) throw error;
    return { envelope: await search({ ...spec, expand: undefined }), expanded: [] };
  }
}

/** A document as its page reads it (`GET /company/<id>`), with the names of the documents its references point to. */
export interface ReadDocument extends Tagged {
  referenced: Map<string, Doc>;
  /** Identifiers the read with `expand` found no document for. */
  missing: Set<string>;
}

/**
 * A document for its page: read as it is (its own `ETag`, which the writes send as `If-Match`:
 * the tag of a read with `expand` is a weak one that `If-Match` never matches), and, at the same
 * time, read with `expand` of its expandable references for their names. Without expandable
 * references, or when that read fails, the names are looked up later (`referencedDocuments`).
 */
export async function readDocument(context: AppContext, resource: ResourceMetadata, id: string): Promise<ReadDocument> {
  const fields = flatten(resource.fields);
  const expand = expandPaths(fields, resource.maxExpandPaths);
  const [own, expanded] = await Promise.all([
    context.api.one(resource, id),
    expand.length
      ? context.api.call('findOne', { resource, id }, { query: new URLSearchParams({ expand: expand.join(',') }) }).catch(() => undefined)
      : undefined,
  ]);
  const { found, missing } = expanded ? expandedReferences(fields, own.body, expanded.body) : { found: new Map<string, Doc>(), missing: new Set<string>() };
  return { ...own, referenced: found, missing };
}
