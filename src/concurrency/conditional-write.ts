import mongoose, { type Model } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { etagOf, failedCondition, parseEntityTags, parseVersionTag, type EntityTagCondition, type WritePrecondition } from './entity-tag.js';
import { allOf } from '../utils/all-of.util.js';

/**
 * Options of a repository write.
 *
 * @publicApi
 */
export interface WriteOptions {
  /**
   * Entity tags (an `If-Match` header's value, `etagOf(doc)`, or several): write only if the
   * document is still at one of these versions, checked in the write's own filter; otherwise
   * nothing is written and a 412 `MR_PRECONDITION_FAILED` is thrown. `'*'`: any version.
   * Without it, a write made while a generated route's request is handled takes that request's
   * `If-Match` when it writes the route's own document (once per request).
   */
  ifMatch?: string | readonly string[];
  /**
   * Entity tags (an `If-None-Match` header's value): write only if the document has none of these
   * versions (weak comparison), checked in the write's own filter like `ifMatch`; `'*'`: never
   * write an existing document. Otherwise nothing is written and a 412 `MR_PRECONDITION_FAILED` is
   * thrown. Given either option, the request's conditions do not apply to the write.
   */
  ifNoneMatch?: string | readonly string[];
  /**
   * `false`: the resource's lifecycle hooks (`@GeneratedResource({ hooks })`) do not run for this
   * write (a data migration, a seed). Default: they run, in your code as on the routes.
   */
  hooks?: boolean;
}

/** The conditions of one write, as the repository applies them (`If-Match: *` is no condition). */
export interface Precondition {
  ifMatch?: string[];
  ifNoneMatch?: EntityTagCondition;
}

/** What a conditional write filters on, or `null` when the condition can match no version (it names another document). */
export type WriteFilter = { filter: Record<string, unknown> } | null;

/**
 * What conditional writes need to know of one repository's documents. `C` is the call a write
 * serves (the repository's `CallContext`), handed back to the target as it came: opaque here.
 */
export interface ConditionalTarget<D extends object, C> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
  model: Model<any>;
  /** The model's name, for the 412's message. */
  name: string;
  idField: string;
  versionKey?: string;
  /** `+secret +password`: a read of the whole content holds the hidden fields too. */
  revealHidden: string;
  maxTimeMS(): number;
  /** The filter of the document a path identifier names, among those the call may write. */
  idFilter(id: string, call: C): Record<string, unknown>;
  /** A path identifier cast to the type of the `id` field. */
  castId(id: string): unknown;
  /** A raw document as the routes answer it, with its entity tag attached (see `etagOf`). */
  tagged(raw: object): D;
  /** The document as a write finds it (a 403 where the call may read it and not write it). */
  findOne(id: string, call: C): Promise<D | null>;
  /** Whether the call may read documents it may not write (a row scope with its own `write`): then a write that matched nothing asks `findOne` why. */
  writesFewer(call: C): boolean;
}

/**
 * The conditions of a write: those given, else the request's for this document (`taken`, asked
 * only then); `undefined` for none. `If-Match: *` checks nothing: a write only ever finds an existing document.
 */
export function preconditionOf(options: WriteOptions | undefined, taken: () => WritePrecondition | undefined): Precondition | undefined {
  const given = options && (options.ifMatch !== undefined || options.ifNoneMatch !== undefined);
  const conditions = given
    ? {
        ifMatch: options.ifMatch === undefined ? undefined : parseEntityTags(options.ifMatch),
        ifNoneMatch: options.ifNoneMatch === undefined ? undefined : parseEntityTags(options.ifNoneMatch),
      }
    : taken();
  const ifMatch = conditions?.ifMatch === '*' ? undefined : conditions?.ifMatch;
  const ifNoneMatch = conditions?.ifNoneMatch;
  return ifMatch || ifNoneMatch ? { ifMatch, ifNoneMatch } : undefined;
}

/** `If-Match` and `If-None-Match` applied in a write's own filter, and what a write that matched nothing means. */
export class ConditionalWrites<D extends object, C> {
  constructor(private readonly target: ConditionalTarget<D, C>) {}

  /**
   * The filter of a write to the document `id` names, with `condition` and `precondition`. With a
   * version key, `If-Match` is a condition on it (and on `_id` where the id field is another one),
   * and `If-None-Match` the negation of one (`*` matches no document: an existing one is never
   * written); without (`versionKey: false`), the document is read, its content tag compared (a 412
   * if a condition fails), and the write filters on every top-level field of what was read: a
   * compare-and-swap of the whole content.
   */
  async writeFilter(id: string, call: C, precondition: Precondition | undefined, condition?: Record<string, unknown>): Promise<WriteFilter> {
    const { target } = this;
    const filter = allOf(target.idFilter(id, call), condition);
    if (!precondition) return { filter };
    const { ifMatch, ifNoneMatch } = precondition;
    if (ifNoneMatch === '*') return null;
    if (target.versionKey) {
      const versions = ifMatch && this.versionCondition(id, ifMatch);
      if (versions === null) return null;
      // A weak tag names the same version as its strong form (weak comparison).
      const excluded =
        ifNoneMatch &&
        this.versionCondition(
          id,
          ifNoneMatch.map((tag) => tag.replace(/^W\//, '')),
        );
      return { filter: allOf(filter, versions, excluded ? { $nor: [excluded] } : undefined) };
    }
    const raw = await target.model.findOne(target.idFilter(id, call)).select(target.revealHidden).maxTimeMS(target.maxTimeMS()).lean().exec();
    if (!raw) return null;
    const tag = etagOf(target.tagged(mongoose.mongo.BSON.deserialize(mongoose.mongo.BSON.serialize(raw))))!;
    const failed = failedCondition(precondition, tag);
    if (failed) throw ModelRoutesException.preconditionFailed(target.name, id, tag, failed);
    return { filter: allOf(this.sameContent(raw as Record<string, unknown>), condition) };
  }

  /**
   * Why a write matched nothing: `null` when no document has this id; a 412 when `precondition`
   * fails; otherwise the document, unchanged, where the write was `conditional` (an add of an
   * identifier already there), or a 412 where it was not (another writer got in between).
   */
  async unwritten(id: string, call: C, precondition: Precondition | undefined, conditional: boolean): Promise<D | null> {
    if (!precondition && !conditional) {
      // A document the call may read and not write is a 403, not a 404: `findOne` throws it.
      if (this.target.writesFewer(call)) await this.target.findOne(id, call);
      return null;
    }
    const current = await this.target.findOne(id, call);
    if (!current || !precondition) return current;
    const tag = etagOf(current)!;
    const failed = failedCondition(precondition, tag);
    if (failed || !conditional) throw ModelRoutesException.preconditionFailed(this.target.name, id, tag, failed);
    return current;
  }

  /** Why a retryable write matched nothing: `null` when no document has this id, a 412 when its `precondition` fails, else `undefined` (retry). */
  async unmatched(id: string, call: C, precondition: Precondition | undefined): Promise<null | undefined> {
    const current = await this.target.findOne(id, call);
    if (!current) return null;
    const failed = precondition && failedCondition(precondition, etagOf(current)!);
    if (failed) throw ModelRoutesException.preconditionFailed(this.target.name, id, etagOf(current), failed);
    return undefined;
  }

  /** `{ __v: 3 }`, `{ $or: [...] }` for several tags, or `null` when no tag names this document. */
  private versionCondition(id: string, tags: readonly string[]): Record<string, unknown> | null {
    const versionKey = this.target.versionKey!;
    const byIdField = this.target.idField === '_id';
    const alternatives: Record<string, unknown>[] = [];
    for (const tag of tags) {
      const named = parseVersionTag(tag);
      if (!named) continue;
      // A document written before versioning (or by other code) may have no version key: version 0.
      const version = named.version === 0 ? { $in: [0, null] } : named.version;
      if (byIdField) {
        if (named.id === String(this.target.castId(id))) alternatives.push({ [versionKey]: version });
      } else {
        const objectId = this.castTagId(named.id);
        if (objectId !== undefined) alternatives.push({ _id: objectId, [versionKey]: version });
      }
    }
    if (alternatives.length === 0) return null;
    return alternatives.length === 1 ? alternatives[0] : { $or: alternatives };
  }

  /** The `_id` of a tag, cast to the schema's type; `undefined` when it cannot be one. */
  private castTagId(id: string): unknown {
    try {
      return this.target.model.schema.path('_id').cast(id, undefined, false);
    } catch {
      return undefined;
    }
  }

  /** A filter that only the document with exactly this content matches: each field's value, and no other top-level field. */
  private sameContent(raw: Record<string, unknown>): Record<string, unknown> {
    const filter: Record<string, unknown> = { ...raw };
    for (const path of Object.keys(this.target.model.schema.paths)) {
      const top = path.split('.')[0];
      if (!(top in filter)) filter[top] = { $exists: false };
    }
    return filter;
  }
}
