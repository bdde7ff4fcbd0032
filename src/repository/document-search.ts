import { Mongoose, type Model, type Types } from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ReadPreferenceMode } from '../interfaces/route-options.interface.js';
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { CountPolicy } from '../metadata/count-policies.js';
import { checkFerretDbFilter } from '../query/engine-limits.js';
import type { SearchParams } from '../query/search-params.interface.js';
import { allOf } from '../utils/all-of.util.js';
import { CollectionCount } from './collection-count.js';
import type { DocumentStore, PlainDocument } from './document-store.js';
import { KeysetPage, strip } from './keyset-page.js';
import { needsCollectionCount, searchCounts } from './match-count.js';
import { invalidCursor, LIBRARY_CURSOR_KEY } from './search-cursor.js';
import { searchError, timeLimitAmong, type SearchPlace } from './search-error.util.js';
import { serverEngine } from './server-engine.js';
import { withIdLast } from './sort-order.js';

/** The documents an export reads per round trip (the cursor's `batchSize`), and hands on at once. */
export const EXPORT_PAGE = 500;

/**
 * The searches of one resource, under `ModelRepository`: a page and its counts, an export's
 * cursor, and the `_id`s a condition across a reference names. Each takes the call it serves.
 */
export class DocumentSearch<T> {
  /** The envelope's `count`: collection metadata, never a scan. */
  private readonly collectionCount: CollectionCount;

  constructor(private readonly store: DocumentStore<T>) {
    const { model } = store;
    this.collectionCount = new CollectionCount({
      // The driver's collection: a Mongoose aggregate may put a stage before `$collStats`, which must be first.
      collStats: (readPreference) =>
        model.collection.aggregate<{ count?: unknown }>([{ $collStats: { count: {} } }], { maxTimeMS: store.maxTimeMS, readPreference }).toArray(),
      estimated: (readPreference) => {
        const query = model.estimatedDocumentCount().maxTimeMS(store.maxTimeMS);
        return (readPreference ? query.read(readPreference) : query).exec();
      },
    });
  }

  /** With sub-types: a model of the union of their fields, compiled apart, which casts a search's filter. */
  private union?: Model<unknown>;

  /**
   * With sub-types, the filter cast by the union of their fields: the base model would leave a
   * sub-type's field as sent (`?pages=412` a string, a date a string), and so match nothing.
   */
  private castSubTypeFilter(filter: Record<string, unknown>): Record<string, unknown> {
    const { definition } = this.store;
    if (!definition.discriminator) return filter;
    this.union ??= new Mongoose().model(definition.name, definition.schema.clone()) as unknown as Model<unknown>;
    try {
      return this.union.find(filter).cast() as Record<string, unknown>;
    } catch (error) {
      throw searchError(error, filter) ?? error;
    }
  }

  /** See `ModelRepository.search()`. */
  async search(given: SearchParams, scope: Record<string, unknown> | undefined, call: CallContext): Promise<SearchResult<PlainDocument<T>>> {
    const { store } = this;
    const { model, definition } = store;
    const params = definition.discriminator ? Object.assign({}, given, { filter: this.castSubTypeFilter(given.filter) }) : given;
    if ((await serverEngine(model.db)) === 'ferretdb') this.checkFerretDbSearch(params.filter);
    const { filter, sort, keyset, page } = this.searchPlan(params, scope, call);
    // The sort's fields that `select` leaves out are read for the cursor, then taken out.
    const added = keyset && params.select ? keyset.unselected(params.select) : [];
    const projection = params.select && Object.fromEntries([...params.select, ...added].map((field) => [field, 1]));
    // One document more than the page tells whether another page follows.
    const query = store
      .reading(model.find(page, projection), call)
      .skip(params.skip)
      .limit(keyset ? params.limit + 1 : params.limit)
      .maxTimeMS(store.maxTimeMS)
      .lean();
    if (sort) query.sort(sort);
    // Unfiltered: no condition but the row scope's, whose documents are the collection as this request sees it.
    const unfiltered = scope === undefined && Object.keys(params.filter).length === 0;
    const plan = { policy: params.count ?? call.count ?? definition.search.count, unfiltered, estimateLimit: definition.search.estimateLimit };
    const countMatches = (limit?: number) => {
      const counting = store.reading(model.countDocuments(filter), call).maxTimeMS(store.maxTimeMS);
      return (limit === undefined ? counting : counting.limit(limit)).exec();
    };
    // An exact count goes beside the page, as a hand-written search sends it: a full page waits for the slower of the two.
    const exactCount = plan.policy === 'exact' ? countMatches() : undefined;
    const operations: Array<Promise<unknown> | undefined> = [
      query.exec(),
      needsCollectionCount(plan) ? this.collectionSize(plan.policy, call) : undefined,
      exactCount,
    ];
    try {
      const [found, collection] = (await Promise.all(operations)) as [Array<Record<string, unknown>>, number | undefined];
      const more = keyset ? found.length > params.limit : undefined;
      const docs = more ? found.slice(0, params.limit) : found;
      const next = more ? keyset!.next(docs[params.limit - 1]) : undefined;
      if (added.length) for (const doc of docs) strip(doc, added, params.select!);
      const result = docs.map((doc) => store.toPlain(doc, { virtuals: !params.select }));
      const read = {
        skip: params.skip,
        limit: params.limit,
        found: docs.length,
        ...(more !== undefined && { more }),
        ...(params.after !== undefined && { continued: true }),
      };
      const { count, match_count, counted } = await searchCounts(plan, read, {
        matches: (limit) => {
          if (limit === undefined && exactCount) return exactCount;
          const pending = countMatches(limit);
          operations.push(pending);
          return pending;
        },
        ...(collection === undefined ? {} : { collection }),
      });
      return {
        status: {
          count,
          search_count: result.length,
          ...(match_count === undefined ? {} : { match_count }),
          counted,
          limit: params.limit,
          skip: params.skip,
          ...(next && { next }),
        },
        result,
      };
    } catch (error) {
      const cause = await timeLimitAmong(operations, error);
      throw searchError(cause, given.filter) ?? cause;
    }
  }

  /** See `ModelRepository.exportPages()`. */
  async *exportPages(given: SearchParams, scope: Record<string, unknown> | undefined, call: CallContext): AsyncGenerator<Array<PlainDocument<T>>> {
    const params = this.store.definition.discriminator ? Object.assign({}, given, { filter: this.castSubTypeFilter(given.filter) }) : given;
    const { store } = this;
    if ((await serverEngine(store.model.db)) === 'ferretdb') this.checkFerretDbSearch(params.filter);
    const { sort, page } = this.searchPlan(params, scope, call);
    const projection = params.select && Object.fromEntries(params.select.map((field) => [field, 1]));
    const read = params.everyMatch ? params.limit + 1 : params.limit;
    const cursor = store
      .reading(store.model.find(page, projection), call)
      .sort(sort ?? { _id: 1 })
      .skip(params.skip)
      .limit(read)
      .batchSize(EXPORT_PAGE)
      .maxTimeMS(store.definition.search.exportMaxTimeMS)
      .lean()
      .cursor();
    try {
      let pageOf: Array<PlainDocument<T>> = [];
      let count = 0;
      for await (const doc of cursor) {
        if (++count > params.limit) throw exportTooLarge(store.definition.name, params.limit);
        pageOf.push(store.toPlain(doc as object, { virtuals: !params.select }));
        if (pageOf.length === EXPORT_PAGE) {
          yield pageOf;
          pageOf = [];
        }
      }
      if (pageOf.length) yield pageOf;
    } catch (error) {
      throw searchError(error, params.filter) ?? error;
    } finally {
      await cursor.close();
    }
  }

  /** See `ModelRepository.matchingObjectIds()`. */
  async matchingObjectIds(
    filter: Record<string, unknown>,
    limit: number,
    { readPreference, outside = false, at }: { readPreference?: ReadPreferenceMode; outside?: boolean; at?: SearchPlace },
    call: CallContext,
  ): Promise<Types.ObjectId[]> {
    const { model } = this.store;
    try {
      // Cast first, so that a value the schema refuses is named as the client wrote it, not inside `$nor`.
      model.find(filter).cast();
    } catch (error) {
      throw searchError(error, filter, at) ?? error;
    }
    if ((await serverEngine(model.db)) === 'ferretdb') checkFerretDbFilter(filter, at?.path);
    const query = model
      .find(this.store.scoped(outside ? { $nor: [filter] } : filter, call), { _id: 1 })
      .limit(limit)
      .batchSize(limit)
      .maxTimeMS(this.store.maxTimeMS)
      .lean();
    const found = await (readPreference ? query.read(readPreference) : query).exec();
    return found.map((doc) => (doc as unknown as { _id: Types.ObjectId })._id);
  }

  /** See `ModelRepository.missingObjectIds()`. */
  async missingObjectIds(objectIds: readonly Types.ObjectId[], call: CallContext): Promise<Types.ObjectId[]> {
    if (objectIds.length === 0) return [];
    const { store } = this;
    const found = await store
      .reading(store.model.find(store.scoped({ _id: { $in: objectIds } }, call), { _id: 1 }), call)
      .maxTimeMS(store.maxTimeMS)
      .lean()
      .exec();
    const existing = new Set(found.map((doc) => String((doc as unknown as { _id: unknown })._id)));
    return objectIds.filter((objectId) => !existing.has(String(objectId)));
  }

  /**
   * Refuses the forms FerretDB would answer wrongly (an empty result), naming their place; a value
   * that cannot be cast is answered first, as on MongoDB (a client's mistake before an engine's limit).
   */
  async checkFilter(filter: Record<string, unknown>): Promise<void> {
    if ((await serverEngine(this.store.model.db)) === 'ferretdb') this.checkFerretDbSearch(filter);
  }

  private checkFerretDbSearch(filter: Record<string, unknown>): void {
    try {
      this.store.model.find(filter).cast();
    } catch (error) {
      throw searchError(error, filter) ?? error;
    }
    checkFerretDbFilter(filter);
  }

  /**
   * What the query of a search is made of: the client's filter with `scope`, the sort with `_id` as
   * its tie-breaker, the keyset of a sorted search (its answer carries the cursor after its page,
   * `status.next`), and the page's filter (after the cursor `after`, if sent).
   */
  private searchPlan(params: SearchParams, routeScope: Record<string, unknown> | undefined, call: CallContext) {
    const { definition } = this.store;
    const scope = this.store.scoped(routeScope, call);
    const filter = allOf(scope, params.filter);
    // A tie-breaker on _id makes paging through equal sort keys deterministic.
    const sort = params.sort && withIdLast(params.sort);
    const keyset =
      sort &&
      new KeysetPage(
        { resource: definition.name, scope: Object.keys(scope).length ? scope : undefined, sort, filter: params.sentFilter ?? params.filter },
        definition.search.cursorSecret ?? LIBRARY_CURSOR_KEY,
      );
    const page = params.after === undefined ? filter : allOf(filter, this.afterCursor(keyset, params.after));
    return { filter, sort, keyset, page };
  }

  /**
   * The condition of the documents after the cursor `after` of a sorted search (`keyset`); a 400
   * `MR_INVALID_CURSOR` when the search is not sorted, the cursor is another search's, or one of
   * its values cannot be cast to its field (a forged cursor: made with the library's public key).
   */
  private afterCursor(keyset: KeysetPage | undefined, after: unknown): Record<string, unknown> {
    if (!keyset) throw invalidCursor('after continues a sorted search: send the sort of the page that gave it');
    const condition = keyset.after(after);
    try {
      this.store.model.find(condition).cast();
    } catch {
      throw invalidCursor('after holds a value that its field cannot hold: send status.next of a page as it came');
    }
    return condition;
  }

  /**
   * The envelope's `count`: the collection's size from its metadata; with a row scope or soft
   * delete, the documents the call may read, counted (metadata would tell the size of every
   * tenant's data): wholly for an exact count, up to `search.estimateLimit` + 1 for an estimate (a
   * lower bound past it, as an estimate of a filtered search is bounded), and not at all for
   * `none` (`undefined`: the count is then what the page shows, `skip` and its documents).
   */
  private collectionSize(policy: CountPolicy, call: CallContext): Promise<number | undefined> | undefined {
    const { store } = this;
    const scope = store.rules.filter(call, 'read');
    if (!scope) return this.collectionCount.read(call.readPreference);
    if (policy === 'none') return undefined;
    const counting = store.reading(store.model.countDocuments(scope), call).maxTimeMS(store.maxTimeMS);
    return (policy === 'exact' ? counting : counting.limit(store.definition.search.estimateLimit + 1)).exec();
  }
}

/** A 400 `MR_EXPORT_TOO_LARGE`: the export's search matches more than `limit` documents. */
function exportTooLarge(resource: string, limit: number): ModelRoutesException {
  return new ModelRoutesException(
    'MR_EXPORT_TOO_LARGE',
    `The export matches more than ${limit} ${resource} documents (search.exportMaxRows): narrow the filter, or send a limit to export the first ones`,
    [{ path: 'limit', message: `at most ${limit}` }],
  );
}
