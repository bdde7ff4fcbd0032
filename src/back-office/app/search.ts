import type { Envelope } from './api.js';
import type { AppContext } from './context.js';
import type { FieldMetadata, ResourceMetadata } from './metadata.js';
import type { Doc } from './picker.js';
import { valueAt } from './text.js';

/** A condition on one field: a value (equality) or operators of the allowlist. */
export type Condition = string | number | boolean | { $regex?: string; $options?: string; $gte?: string | number; $lte?: string | number; $in?: string[] };

/** A search as the app builds it; sent as a query string (`GET`) or a body (`POST`), whichever route is enabled. */
export interface SearchSpec {
  filter: Record<string, Condition>;
  /** `-employees`. */
  sort?: string;
  limit?: number;
  skip?: number;
}

/** A function that runs a search on one search route, if the resource has one enabled. */
export type Searcher = (spec: SearchSpec) => Promise<Envelope>;

/** The resource's own search (`GET /companies`, else `POST /companies`). */
export function resourceSearch(context: AppContext, resource: ResourceMetadata): Searcher | undefined {
  const url = context.api.url(resource.plural);
  return searcher(context, url, resource.routes.includes('search'), resource.routes.includes('searchPost'));
}

/** The documents of `source` whose `field` references the target `id` (`GET /user/<id>/companies/owner`). */
export function reverseSearch(context: AppContext, source: ResourceMetadata, field: string, target: ResourceMetadata, id: string): Searcher | undefined {
  const relation = target.referencedBy.find((entry) => entry.resource === source.name && entry.field === field);
  if (!relation) return undefined;
  const url = context.api.url(target.path, id, source.plural, field);
  return searcher(context, url, relation.routes.includes('reverse'), relation.routes.includes('reversePost'));
}

function searcher(context: AppContext, url: string, get: boolean, post: boolean): Searcher | undefined {
  if (get) return (spec) => context.api.search(url, toQueryString(spec));
  if (post) return async (spec) => (await context.api.json<Envelope>('POST', url, { body: toBody(spec) })).body;
  return undefined;
}

/** `{ filter: { employees: { $gte: 10 } }, sort: '-employees' }` → `employees[gte]=10&sort=-employees`. */
export function toQueryString(spec: SearchSpec): URLSearchParams {
  const query = new URLSearchParams();
  for (const [field, condition] of Object.entries(spec.filter)) {
    if (typeof condition !== 'object') {
      query.append(field, String(condition));
      continue;
    }
    for (const [operator, value] of Object.entries(condition)) {
      if (value === undefined) continue;
      query.append(`${field}[${operator.slice(1)}]`, Array.isArray(value) ? value.join(',') : String(value));
    }
  }
  if (spec.sort) query.set('sort', spec.sort);
  if (spec.limit !== undefined) query.set('limit', String(spec.limit));
  if (spec.skip) query.set('skip', String(spec.skip));
  return query;
}

function toBody(spec: SearchSpec): Record<string, unknown> {
  return { query: spec.filter, ...(spec.sort && { sort: spec.sort }), ...(spec.limit !== undefined && { limit: spec.limit }), ...(spec.skip && { skip: spec.skip }) };
}

/** A fragment typed by a user, matched literally and case-insensitively. */
export function containing(text: string): Condition {
  return { $regex: text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), $options: 'i' };
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
