import { createHash } from 'node:crypto';
import { attachEtag, etagOf } from '../concurrency/entity-tag.js';
import type { CallExpansion } from '../call/route-call.js';
import type { CallContext } from '../call/call-context.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { ExpandPath } from '../query/search-params.interface.js';
import type { ModelRepository } from '../repository/model-repository.js';
import type { RepositoryOf } from './relation-rules.js';

type Doc = Record<string, unknown>;

/**
 * The references one request asked to expand (`?expand=owner,owner.company`), applied to its answer:
 * each identifier replaced, in place, by the document it names, as its own model's routes answer it
 * (hidden fields out, the request's serialization view applied), or by `null` where it names none
 * (missing, or hidden from the request: the same); in an array of references, the documents found,
 * in the array's order. One query per path per level for the whole answer (`findByObjectIds`),
 * never one per document.
 */
export class Expansion implements CallExpansion {
  /**
   * @param paths what to expand, as parsed (`parseExpand`)
   * @param repository the repository of the answered model
   * @param groups the request's serialization groups
   * @param repositoryOf every model's repository, for the targets
   */
  constructor(
    readonly paths: readonly ExpandPath[],
    private readonly repository: ModelRepository,
    private readonly groups: readonly string[] | undefined,
    private readonly repositoryOf: RepositoryOf,
  ) {}

  /**
   * Expands the documents of an answer: one document, or a search envelope's. A document's entity
   * tag becomes a weak one of its own and of every document expanded into it, so that it changes
   * when any of them does (`If-None-Match` works; `If-Match` wants the tag of a read without `expand`).
   */
  async apply(answer: unknown, shape: 'document' | 'list', context: CallContext): Promise<void> {
    const docs = (shape === 'list' ? ((answer as SearchResult<Doc> | undefined)?.result ?? []) : answer ? [answer] : []) as Doc[];
    if (docs.length === 0) return;
    await this.expand(docs, this.repository, this.paths, context);
    if (shape === 'document') retag(docs[0], this.paths);
  }

  private async expand(docs: Doc[], repository: ModelRepository, paths: readonly ExpandPath[], context: CallContext): Promise<void> {
    await Promise.all(paths.map((path) => this.expandPath(docs, repository, path, context)));
  }

  private async expandPath(docs: Doc[], repository: ModelRepository, path: ExpandPath, context: CallContext): Promise<void> {
    if (path.reverse) return this.expandReverse(docs, path, path.reverse, context);
    const reference = repository.definition.references.find((candidate) => candidate.field === path.field)!;
    const ids = new Map<string, unknown>();
    for (const doc of docs) for (const id of idsIn(doc[path.field])) ids.set(String(id), id);
    const target = this.repositoryOf(reference.targetName).in(context);
    const found = ids.size ? await target.findByObjectIds([...ids.values()]) : [];
    await this.prepare(found as Doc[], target, path, context);
    const byId = new Map<string, Doc>(found.map((doc) => [String(doc._id), doc as Doc]));
    for (const doc of docs) {
      const value = doc[path.field];
      if (Array.isArray(value)) doc[path.field] = value.flatMap((id) => byId.get(String(id)) ?? []);
      else if (value !== undefined && value !== null) doc[path.field] = byId.get(String(value)) ?? null;
    }
  }

  /**
   * The documents of the reverse path's resource that reference each of `docs`, in one query: in
   * the path's order, at most its `limit` per document (default: the resource's `defaultLimit`).
   * The query reads at most `maxRelationIds` documents for the whole answer; where that is not
   * enough to know each document's first ones, a 400 `MR_EXPAND_TOO_BROAD`, never a cut.
   */
  private async expandReverse(docs: Doc[], path: ExpandPath, reverse: NonNullable<ExpandPath['reverse']>, context: CallContext): Promise<void> {
    const source = this.repositoryOf(reverse.source).in(context);
    const limit = path.limit ?? source.definition.search.defaultLimit;
    const bound = readBound(this.repository);
    const found = (await source.findReferencing(
      reverse.field,
      docs.map((doc) => doc._id),
      path.sort,
      bound + 1,
    )) as Doc[];
    const pages = new Map<string, Doc[]>(docs.map((doc) => [String(doc._id), []]));
    for (const child of found.slice(0, bound)) {
      for (const id of idsIn(child[reverse.field])) {
        const page = pages.get(String(id));
        if (page && page.length < limit) page.push(child);
      }
    }
    if (found.length > bound && [...pages.values()].some((page) => page.length < limit)) {
      throw new ModelRoutesException(
        'MR_EXPAND_TOO_BROAD',
        `Expanding '${path.path}' would read more than ${bound} ${reverse.source} documents (search.maxRelationIds); ask for fewer documents, or page ` +
          `through the reverse route`,
        [{ path: `expand.${path.path}`, message: `reads more than ${bound} documents` }],
      );
    }
    await this.prepare(found.slice(0, bound), source, path, context);
    for (const doc of docs) doc[path.field] = pages.get(String(doc._id)) ?? [];
  }

  /** Expanded documents as their own routes answer them to this request: its view of their model, then their own expansions. */
  private async prepare(found: Doc[], repository: ModelRepository, path: ExpandPath, context: CallContext): Promise<void> {
    const views = repository.definition.serialization;
    const view = views?.view(this.groups);
    if (views && view && (view.hidden.size || view.transforms.length)) for (const doc of found) views.apply(doc, view);
    if (path.children.length && found.length) await this.expand(found, repository, path.children, context);
  }
}

/** The most documents one reverse path reads for a whole answer: past it, a 400 rather than a cut (`search.maxRelationIds`). */
function readBound(repository: ModelRepository): number {
  return repository.definition.search.maxRelationIds;
}

function idsIn(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.filter((id) => id !== null && id !== undefined);
  return value === null || value === undefined ? [] : [value];
}

/** Gives `doc` a weak tag made of its own and those of the documents expanded into it. */
function retag(doc: Doc, paths: readonly ExpandPath[]): void {
  const own = etagOf(doc);
  if (!own) return;
  const tags = [own];
  collectTags(doc, paths, tags);
  attachEtag(doc, `W/"${createHash('sha256').update(tags.join(',')).digest('base64url').slice(0, 27)}"`);
}

function collectTags(doc: Doc, paths: readonly ExpandPath[], tags: string[]): void {
  for (const path of paths) {
    const value = doc[path.field];
    for (const nested of Array.isArray(value) ? value : [value]) {
      if (nested === null || typeof nested !== 'object') {
        tags.push(`${path.path}:${String(nested)}`);
        continue;
      }
      tags.push(etagOf(nested) ?? '');
      collectTags(nested as Doc, path.children, tags);
    }
  }
}
