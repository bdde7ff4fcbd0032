import { Types, type Model } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';

/** What a repository needs to know of its model: a resource's definition, or a plain model's. */
export type RepositoryDefinition = Pick<ResourceDefinition, 'name' | 'idField' | 'schema' | 'fields' | 'search'>;
import type { SearchResult } from '../interfaces/search-result.interface.js';
import type { SearchParams } from '../query/search-params.interface.js';

/** A document as the routes return it: plain data, without the version key and hidden fields. */
export type PlainDocument<T = Record<string, unknown>> = T & { _id: Types.ObjectId };

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/**
 * The one data access service behind every generated route, one instance per resource.
 * Knows Mongoose, knows no HTTP. Inject it in your own code with `@InjectRepository(Company)`.
 *
 * It trusts its callers: check client input first with `parseSearchBody`,
 * `parseSearchQueryString` and `assertWritableBody`, as the generated handlers do.
 */
export class ModelRepository<T = Record<string, unknown>> {
  /** `+secret +password`: see `findAndUpdate()` for why hidden fields are fetched and then dropped. */
  private readonly revealHidden: string;
  /** Hidden paths, split once: `toPlain()` runs for every document of every response. */
  private readonly hiddenPaths: string[][];

  constructor(
    readonly model: Model<T>,
    readonly definition: RepositoryDefinition,
  ) {
    this.revealHidden = [...definition.fields.hidden].map((path) => `+${path}`).join(' ');
    this.hiddenPaths = [...definition.fields.hidden].map((path) => path.split('.'));
  }

  /** Finds the document whose `id` field (default `_id`) equals `id`; `null` when none does. */
  async findOne(id: string): Promise<PlainDocument<T> | null> {
    const doc = await this.model.findOne(this.idFilter(id)).lean().exec();
    return doc && this.toPlain(doc);
  }

  /** Finds a document by its `_id`, whatever the resource's `id` field: how references are stored. */
  async findByObjectId(objectId: Types.ObjectId | string): Promise<PlainDocument<T> | null> {
    const doc = await this.model.findOne({ _id: objectId }).lean().exec();
    return doc && this.toPlain(doc);
  }

  /** Creates a document; schema validators run. */
  async create(data: Record<string, unknown>): Promise<PlainDocument<T>> {
    const doc = new this.model(data);
    await doc.save();
    return this.toPlain(doc.toObject({ versionKey: false, virtuals: false, getters: false, transform: false }));
  }

  /**
   * Changes only the fields in `data` (`$set`); the schema validators of those fields run.
   * Returns the updated document, or `null` when none has this id.
   */
  async update(id: string, data: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    if (Object.keys(data).length === 0) return this.findOne(id);
    return this.findAndUpdate(id, { $set: data });
  }

  /** Adds one identifier to an array of references (once); the updated document, or `null`. */
  addReference(id: string, field: string, objectId: Types.ObjectId): Promise<PlainDocument<T> | null> {
    return this.findAndUpdate(id, { $addToSet: { [field]: objectId } });
  }

  /** Removes one identifier from an array of references; the updated document, or `null`. */
  removeReference(id: string, field: string, objectId: Types.ObjectId): Promise<PlainDocument<T> | null> {
    return this.findAndUpdate(id, { $pull: { [field]: objectId } });
  }

  private async findAndUpdate(id: string, update: Record<string, unknown>): Promise<PlainDocument<T> | null> {
    // Selecting the hidden fields keeps Mongoose from sending a projection with findAndModify:
    // FerretDB v1 does not implement one. They are dropped by toPlain() before anything returns.
    const doc = await this.model
      .findOneAndUpdate(this.idFilter(id), update, { returnDocument: 'after', runValidators: true, context: 'query' })
      .select(this.revealHidden)
      .lean()
      .exec();
    return doc && this.toPlain(doc as object);
  }

  /** Deletes the document with this id and returns it, or `null` when none has this id. */
  async delete(id: string): Promise<PlainDocument<T> | null> {
    const doc = await this.model.findOneAndDelete(this.idFilter(id)).select(this.revealHidden).lean().exec();
    return doc && this.toPlain(doc as object);
  }

  /**
   * Runs a parsed search. `scope` is ANDed with the client's filter, never replaced by it:
   * the reverse reference routes pass `{ owner: <id> }` there.
   */
  async search(params: SearchParams, scope?: Record<string, unknown>): Promise<SearchResult<PlainDocument<T>>> {
    const filter = combineFilters(scope, params.filter);
    const projection = params.select && Object.fromEntries(params.select.map((field) => [field, 1]));
    // A tie-breaker on _id makes paging through equal sort keys deterministic.
    const sort = params.sort && { ...params.sort, ...(params.sort._id ? {} : { _id: 1 as const }) };
    const query = this.model.find(filter, projection).skip(params.skip).limit(params.limit).lean();
    if (sort) query.sort(sort);
    // Without a filter, every document matches: one count serves for both figures.
    const unfiltered = Object.keys(filter).length === 0;
    const [matchCount, count, docs] = await Promise.all([
      this.model.countDocuments(filter).exec(),
      unfiltered ? undefined : this.model.estimatedDocumentCount().exec(),
      query.exec(),
    ]);
    const result = (docs as object[]).map((doc) => this.toPlain(doc));
    return {
      status: { count: count ?? matchCount, search_count: result.length, match_count: matchCount, limit: params.limit, skip: params.skip },
      result,
    };
  }

  /**
   * The `_id` of the document a path identifier names. With the default `id` field this is just
   * a cast; with another `id` field (a slug) it is a lookup, `null` when nothing matches.
   */
  async resolveObjectId(id: string): Promise<Types.ObjectId | null> {
    if (this.definition.idField === '_id') return this.castId(id) as Types.ObjectId;
    const doc = await this.model.findOne(this.idFilter(id)).select('_id').lean().exec();
    return (doc?._id as Types.ObjectId | undefined) ?? null;
  }

  /** Casts a path identifier to the type of the `id` field; a 400 `MR_INVALID_ID` when it cannot be. */
  castId(id: string): unknown {
    const { idField, schema, name } = this.definition;
    const type = schema.path(idField);
    const invalid = () => new ModelRoutesException('MR_INVALID_ID', `'${id}' is not a valid ${name} identifier`, [{ path: idField, message: 'invalid identifier' }]);
    if (type.instance === 'ObjectId') {
      if (!OBJECT_ID.test(id)) throw invalid();
      return new Types.ObjectId(id);
    }
    try {
      return type.cast(id);
    } catch {
      throw invalid();
    }
  }

  /** Removes the version key and hidden fields from a raw document. */
  toPlain(doc: object): PlainDocument<T> {
    const plain = doc as Record<string, unknown>;
    const { versionKey } = this.definition.fields;
    if (versionKey) delete plain[versionKey];
    for (const path of this.hiddenPaths) deletePath(plain, path);
    return plain as PlainDocument<T>;
  }

  private idFilter(id: string): Record<string, unknown> {
    return { [this.definition.idField]: this.castId(id) };
  }
}

function combineFilters(scope: Record<string, unknown> | undefined, filter: Record<string, unknown>): Record<string, unknown> {
  if (!scope) return filter;
  return Object.keys(filter).length === 0 ? scope : { $and: [scope, filter] };
}

function deletePath(target: Record<string, unknown>, parts: string[]): void {
  const [head, ...rest] = parts;
  if (rest.length === 0) {
    delete target[head];
    return;
  }
  const next = target[head];
  if (Array.isArray(next)) next.forEach((item) => item && typeof item === 'object' && deletePath(item, rest));
  else if (next && typeof next === 'object') deletePath(next as Record<string, unknown>, rest);
}
