import type { Model } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { itemRefusal } from '../errors/error-response.mapper.js';
import type { BulkReport } from '../interfaces/bulk.interface.js';
import { searchError } from './search-error.util.js';

/** Documents written at once, in `_id` order: enough to overlap the round trips, few enough to leave the pool to the other requests. */
export const BULK_CONCURRENCY = 4;

/** One bulk change of one collection, as the repository plans it (see `runBulk`). */
export interface BulkPlan {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
  model: Model<any>;
  /** The model's name, for the messages. */
  resource: string;
  /** The field the items are named by (the resource's `id` field), and each write addresses. */
  idField: string;
  /** The documents to change: an engine filter, cast by the schema (a client's, checked first). */
  filter: Record<string, unknown>;
  /** Most documents the change may touch (`search.bulkMaxDocuments`, or the caller's `maxDocuments`). */
  max: number;
  maxTimeMS: number;
  dryRun: boolean;
  /** What a written item is: `updated` or `deleted`. */
  outcome: 'updated' | 'deleted';
  /**
   * Writes the document `id` names if it still matches `where` (the filter), in the write's own
   * filter: a document changed or deleted since it was read is not written. Resolves to whether it was.
   */
  write(id: string, where: Record<string, unknown>): Promise<boolean>;
}

/**
 * Runs a bulk change: reads the identifiers of the documents `filter` matches (at most `max + 1`,
 * in `_id` order), refuses the change whole when there are more than `max` (400
 * `MR_BULK_TOO_LARGE` with their count, nothing written), then writes them a few at a time, each by
 * its own write (so with every rule a single write has). A write refused by a 4xx of its own is an
 * item `refused` with that error, and the others go on; any other failure (the database gone)
 * ends the change with that error, leaving the documents written before it. A dry run reads and
 * lists, and writes nothing.
 */
export async function runBulk(plan: BulkPlan): Promise<BulkReport> {
  const ids = await matchingIds(plan);
  const report: BulkReport = { dryRun: plan.dryRun, matched: ids.length, [plan.outcome]: 0, skipped: 0, refused: 0, items: [] };
  if (plan.dryRun) {
    report.items = ids.map((id) => ({ id, result: 'matched' }));
    return report;
  }
  const where = { $and: [plan.filter] };
  for (let start = 0; start < ids.length; start += BULK_CONCURRENCY) {
    const chunk = ids.slice(start, start + BULK_CONCURRENCY);
    const settled = await Promise.allSettled(chunk.map((id) => plan.write(id, where)));
    settled.forEach((outcome, index) => {
      const id = chunk[index];
      if (outcome.status === 'fulfilled') {
        const result = outcome.value ? plan.outcome : 'skipped';
        report[outcome.value ? plan.outcome : 'skipped']! += 1;
        report.items.push({ id, result });
        return;
      }
      const refusal = itemRefusal(outcome.reason);
      if (!refusal) throw outcome.reason;
      report.refused += 1;
      report.items.push({ id, result: 'refused', ...refusal });
    });
  }
  return report;
}

/** The identifiers of the matches, as a path would hold them; a 400 `MR_BULK_TOO_LARGE` past `max`. */
async function matchingIds({ model, resource, idField, filter, max, maxTimeMS }: BulkPlan): Promise<string[]> {
  let docs: Array<Record<string, unknown>>;
  try {
    docs = (await model
      .find(filter)
      .select({ [idField]: 1 })
      .sort({ _id: 1 })
      .limit(max + 1)
      .maxTimeMS(maxTimeMS)
      .lean()
      .exec()) as Array<Record<string, unknown>>;
    if (docs.length > max) {
      const matched = await model.countDocuments(filter).maxTimeMS(maxTimeMS).exec();
      throw tooLarge(resource, matched, max);
    }
  } catch (error) {
    throw searchError(error, filter) ?? error;
  }
  // A document without a value in its id field cannot be named by a path, nor written by one.
  return docs.filter((doc) => doc[idField] !== undefined && doc[idField] !== null).map((doc) => String(doc[idField]));
}

function tooLarge(resource: string, matched: number, max: number): ModelRoutesException {
  const message =
    `The filter matches ${matched} ${resource} documents; a bulk change touches at most ${max} (search.bulkMaxDocuments): nothing was ` +
    `written. Narrow the filter`;
  return new ModelRoutesException('MR_BULK_TOO_LARGE', message, [{ path: 'query', message: `matches ${matched}, at most ${max}` }]);
}
