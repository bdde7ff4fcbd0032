import type { OnModuleInit } from '@nestjs/common';
import { Types, type Connection, type Model } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { findDeleteRules, type DeleteRule } from '../definitions/delete-rules.factory.js';

/** A rule with the model whose documents it changes. */
type BoundRule = DeleteRule & { referencing: Model<unknown> };

/**
 * What deleting a document of one model does to the documents that reference it, by the
 * `onDelete` rules of their fields (see `OnDelete`). The engine may give no transactions, so the
 * steps come in the order that makes an interrupted delete safe to retry:
 *
 * 1. `restrict`: the referencing documents are counted; if any, a 409 `MR_REFERENCED` and nothing changes;
 * 2. `nullify` and `pull`: one `updateMany` per field, idempotent, incrementing the version key of
 *    each document it changes (its `ETag` changes with it);
 * 3. the caller deletes the document.
 *
 * A failure between 2 and 3 leaves the document in place with its references already gone; the
 * same delete again converges. A reference written between 1 and 3 by this process cannot
 * happen: the repository runs the delete and every write that names the document through a field
 * with a rule under one lock (`referenceLocks`, `targetLocks`). One written by another process can
 * still dangle.
 */
export class DeleteCascade {
  private readonly restricting: BoundRule[];
  private readonly clearing: BoundRule[];

  constructor(
    private readonly targetName: string,
    rules: readonly BoundRule[],
  ) {
    this.restricting = rules.filter((rule) => rule.onDelete === 'restrict');
    this.clearing = rules.filter((rule) => rule.onDelete !== 'restrict');
  }

  /** Steps 1 and 2 for the document `objectId` (named `id` in the path, for the message of a 409); step 1 alone with `restrictOnly` (a soft delete). */
  async apply(objectId: Types.ObjectId, id: string, maxTimeMS: number, restrictOnly = false): Promise<void> {
    const counts = await Promise.all(
      this.restricting.map((rule) => rule.referencing.countDocuments(this.referencing(rule, objectId)).maxTimeMS(maxTimeMS).exec()),
    );
    const total = counts.reduce((sum, count) => sum + count, 0);
    if (total > 0) throw this.referenced(id, total, counts);
    if (restrictOnly) return;
    // One after the other: two fields of one document (a lead and a member) are two updates of it,
    // which FerretDB v1 does not apply atomically (run together, one of them was lost).
    for (const rule of this.clearing)
      await rule.referencing.updateMany(this.referencing(rule, objectId), this.release(rule, objectId)).maxTimeMS(maxTimeMS).exec();
  }

  /** The documents whose field names `objectId`: never the deleted document itself (a model that references its own). */
  private referencing(rule: BoundRule, objectId: Types.ObjectId): Record<string, unknown> {
    return { [rule.field]: objectId, ...(rule.model === this.targetName && { _id: { $ne: objectId } }) };
  }

  private release(rule: BoundRule, objectId: Types.ObjectId): Record<string, unknown> {
    const versionKey = rule.referencing.schema.get('versionKey') as string | false | undefined;
    const change = rule.onDelete === 'pull' ? { $pull: { [rule.field]: objectId } } : { $set: { [rule.field]: null } };
    return versionKey ? Object.assign({}, change, { $inc: { [versionKey]: 1 } }) : change;
  }

  /** 409: `Entrepreneur '6b02…' cannot be deleted: 3 documents still reference it (Company.owner: 2, Team.members: 1)`. */
  private referenced(id: string, total: number, counts: number[]): ModelRoutesException {
    const fields = this.restricting.map((rule, index) => ({ path: `${rule.model}.${rule.field}`, count: counts[index] })).filter(({ count }) => count > 0);
    return new ModelRoutesException(
      'MR_REFERENCED',
      `${this.targetName} '${id}' cannot be deleted: ${total} ${total === 1 ? 'document still references' : 'documents still reference'} it ` +
        `(${fields.map(({ path, count }) => `${path}: ${count}`).join(', ')}); nothing was deleted`,
      fields.map(({ path, count }) => ({ path, message: `${count} ${path.split('.')[0]} ${count === 1 ? 'document references' : 'documents reference'} it` })),
    );
  }
}

/** The cascades of each connection, by the name of the model whose deletes they apply to. */
const cascades = new WeakMap<Connection, ReadonlyMap<string, DeleteCascade>>();
/** The rules of each connection, by the name of the referencing model (whose writes take the locks). */
const guarded = new WeakMap<Connection, ReadonlyMap<string, readonly DeleteRule[]>>();

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** A model, as the locks know it: its connection and its name. */
type ModelName = Pick<Model<unknown>, 'db' | 'modelName'>;

/**
 * The lock that a write naming `value` in a field with an `onDelete` rule (shared with other
 * writes) and the delete of the document `value` names (alone) take (`ReferenceLocks`), so that
 * within one process the two run one after the other: the write's existence check and its write,
 * or the delete's count of the references and its delete, never interleaved. An `_id` is keyed by its lower-case hex,
 * another identifier (a slug) by its value; values that cannot name a document take no lock.
 */
function lockKey(connection: Connection, targetName: string, value: unknown): string | undefined {
  const key =
    value instanceof Types.ObjectId ? value.toHexString() : typeof value === 'string' ? (OBJECT_ID.test(value) ? value.toLowerCase() : value) : undefined;
  return key === undefined ? undefined : `references/${connection.name}/${targetName}/${key}`;
}

/**
 * The locks a write of `model`'s document takes: one per value it writes in a reference field
 * whose `onDelete` is `restrict`, `nullify` or `pull` (an `ignore` reference may dangle anyway).
 * `data` reads the write's values by field path; none when the model has no such field.
 */
export function referenceLocks(model: ModelName, data: { get(path: string): unknown }): string[] {
  const rules = guarded.get(model.db)?.get(model.modelName);
  if (!rules) return [];
  return rules.flatMap((rule) => {
    const value = data.get(rule.field);
    return (Array.isArray(value) ? value : [value]).map((item) => lockKey(model.db, rule.targetName, item)).filter((key): key is string => key !== undefined);
  });
}

/** The locks a delete of `model`'s document takes, by the values that may name it (`_id`, slug); none when no rule targets the model. */
export function targetLocks(model: ModelName, identifiers: readonly unknown[]): string[] {
  if (!cascades.get(model.db)?.has(model.modelName)) return [];
  return identifiers.map((value) => lockKey(model.db, model.modelName, value)).filter((key): key is string => key !== undefined);
}

/** Whether some `onDelete` rule targets `model`'s documents (its deletes take locks). */
export function hasDeleteRules(model: ModelName): boolean {
  return cascades.get(model.db)?.has(model.modelName) ?? false;
}

/**
 * Reads (and checks) the `onDelete` rules of every model registered on the connection, resources
 * or not, once: a model that no rule targets gets no cascade, and its deletes cost nothing more.
 */
export function loadDeleteCascades(connection: Connection): void {
  const rules = new Map<string, BoundRule[]>();
  for (const name of connection.modelNames()) {
    const referencing = connection.model(name) as Model<unknown>;
    for (const rule of findDeleteRules(referencing.schema, name)) {
      rules.set(rule.targetName, [...(rules.get(rule.targetName) ?? []), Object.assign({}, rule, { referencing })]);
    }
  }
  cascades.set(connection, new Map([...rules].map(([target, bound]) => [target, new DeleteCascade(target, bound)])));
  const bySource = new Map<string, DeleteRule[]>();
  for (const rule of [...rules.values()].flat()) bySource.set(rule.model, [...(bySource.get(rule.model) ?? []), rule]);
  guarded.set(connection, bySource);
}

/**
 * Before a delete: applies the rules of the references to the document `filter` matches (the
 * delete's own filter: identifier and `If-Match` condition), so a delete that would fail with a
 * 404 or a 412 changes nothing. `false` when no document matches; `true` when the delete may go on.
 */
export async function releaseReferences<T>(
  model: Model<T>,
  filter: Record<string, unknown>,
  id: string,
  maxTimeMS: number,
  { restrictOnly = false } = {},
): Promise<boolean> {
  const cascade = cascades.get(model.db)?.get(model.modelName);
  if (!cascade) return true;
  const doc = await model.findOne(filter).select('_id').maxTimeMS(maxTimeMS).lean().exec();
  if (!doc) return false;
  await cascade.apply((doc as { _id: Types.ObjectId })._id, id, maxTimeMS, restrictOnly);
  return true;
}

/**
 * Loads the delete rules of a connection's models when the application initialises: only then
 * has every module registered its models, whatever the order of the app's imports.
 */
export class DeleteCascades implements OnModuleInit {
  constructor(private readonly connection: Connection) {}

  onModuleInit(): void {
    loadDeleteCascades(this.connection);
  }
}
