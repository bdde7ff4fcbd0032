import { checkWrite } from '../call/write-check.util.js';
import { checkCreate } from '../call/sub-type.util.js';
import type { RouteCall } from '../call/route-call.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { itemRefusal } from '../errors/error-response.mapper.js';
import type { ImportBatch, ImportReport, ImportRow } from '../interfaces/import.interface.js';
import { resolveReferences } from '../references/reference-resolver.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { writeError } from '../repository/write-error.util.js';
import { flatAccess, nestedAccess } from '../utils/object-path.util.js';
import { mergeData, toMergeUpdate, withoutNulls } from '../write/update-document.util.js';
import type { ImportQuery } from './import-request.js';

/** Rows checked and written at once, in row order: enough to overlap the round trips, few enough to leave the pool to the other requests. */
export const IMPORT_CONCURRENCY = 4;

type Outcome = 'created' | 'updated' | 'unchanged';

/**
 * The batch of one import request: its rows, and `run()`, which checks each row as the write it
 * stands for is checked (`checkWrite` with the create or update DTO) and writes it through the
 * repository (reference checks, `onDelete` locks, write serialisation, schema validators), a few
 * rows at a time in row order. A row refused (a 4xx of its own) is reported and the others go on;
 * any other failure (the database gone) ends the import with that error, leaving the rows written
 * before it. `dryRun` checks every row, references and validators included, and writes nothing.
 */
export function createImportBatch(
  repository: ModelRepository,
  { mode, dryRun }: Pick<ImportQuery, 'mode' | 'dryRun'>,
  rows: readonly ImportRow[],
  ignored: readonly string[],
  call?: RouteCall,
): ImportBatch {
  return {
    mode,
    dryRun,
    rows,
    async run({ serverFields } = {}): Promise<ImportReport> {
      const report: ImportReport = { mode, dryRun, rows: rows.length, created: 0, updated: 0, unchanged: 0, refused: 0, ignored: [...ignored], errors: [] };
      const importer = new RowImporter(repository, mode === 'upsert', dryRun, serverFields, call);
      for (let start = 0; start < rows.length; start += IMPORT_CONCURRENCY) {
        const settled = await Promise.allSettled(rows.slice(start, start + IMPORT_CONCURRENCY).map((row) => importer.import(row.value)));
        settled.forEach((outcome, index) => {
          if (outcome.status === 'fulfilled') {
            report[outcome.value]++;
            return;
          }
          const refusal = itemRefusal(outcome.reason);
          if (!refusal) throw outcome.reason;
          report.refused++;
          report.errors.push({ row: rows[start + index].row, ...refusal });
        });
      }
      return report;
    },
  };
}

/** Checks and writes one row at a time (see `createImportBatch`). */
class RowImporter {
  constructor(
    private readonly repository: ModelRepository,
    private readonly upsert: boolean,
    private readonly dryRun: boolean,
    private readonly serverFields: Record<string, unknown> | undefined,
    private readonly call: RouteCall | undefined,
  ) {}

  async import(value: unknown): Promise<Outcome> {
    const { definition } = this.repository;
    const key = this.upsert ? keyOf(value, definition.idField) : undefined;
    if (key !== undefined) {
      const current = await this.current(key);
      if (current) {
        const { [definition.idField]: _key, ...changes } = value as Record<string, unknown>;
        return this.update(key, current, mergeData(await checkWrite(changes, definition, definition.dtos?.update, this.call), this.serverFields));
      }
      // Never a create with an `_id` the client chose.
      if (definition.idField === '_id') throw ModelRoutesException.notFound(definition.name, key);
    }
    const data = mergeData(await checkCreate(value, definition, definition.dtos?.create, this.call), this.serverFields);
    if (this.dryRun) await this.checkCreate(data);
    else await this.repository.create(data);
    return 'created';
  }

  /** The stored document the key names, raw (hidden fields aside), hydrated; `undefined` when none, or outside the request's row scope. */
  private async current(key: string) {
    const { model, definition } = this.repository;
    const raw = await model
      .findOne(this.repository.scoped({ [definition.idField]: this.repository.castId(key) }, 'write'))
      .maxTimeMS(definition.search.maxTimeMS)
      .lean()
      .exec();
    return raw ? model.hydrate(raw) : undefined;
  }

  /**
   * An update of `current` by `data`: nothing written when it changes no value (a file exported and
   * imported back changes nothing: no new version, no new `updatedAt`); its references are checked first.
   */
  private async update(key: string, current: Awaited<ReturnType<RowImporter['current']>> & object, data: Record<string, unknown>): Promise<Outcome> {
    const { definition } = this.repository;
    const update = toMergeUpdate(data, definition.fields);
    this.repository.rules.scope?.scopes.checkChanges(update.$set, update.$unset, this.repository.call);
    if (update.$set) await this.references(flatAccess(update.$set));
    for (const [path, value] of Object.entries(update.$set ?? {})) current.set(path, value);
    for (const path of Object.keys(update.$unset ?? {})) current.set(path, undefined);
    const changed = current.modifiedPaths();
    if (changed.length === 0) return 'unchanged';
    // A resource whose writes need If-Match takes no update without one: a file's row carries none.
    if (definition.requireIfMatch)
      throw new ModelRoutesException(
        'MR_PRECONDITION_REQUIRED',
        `Writes to ${definition.name} require If-Match, which an imported row cannot carry: update it with PATCH`,
      );
    if (this.dryRun) await this.validated(current, changed);
    else if (!(await this.repository.update(key, data))) throw ModelRoutesException.notFound(definition.name, key);
    return 'updated';
  }

  /** What a create would check beyond the body: its references exist, its schema's validators pass. */
  private async checkCreate(data: Record<string, unknown>): Promise<void> {
    const { model, definition } = this.repository;
    const values = withoutNulls(data, definition.fields);
    this.repository.rules.scope?.scopes.stamp(values, this.repository.call);
    await this.references(nestedAccess(values));
    await this.validated(new model(values));
  }

  private async validated(doc: { validate(paths?: string[]): Promise<void> }, paths?: string[]): Promise<void> {
    try {
      await doc.validate(paths);
    } catch (error) {
      throw (await writeError(error, this.repository.model, {})) ?? error;
    }
  }

  private references(data: Parameters<typeof resolveReferences>[2]): Promise<void> | undefined {
    const { model, definition } = this.repository;
    return resolveReferences(
      model.db,
      [...definition.references, ...(definition.embeddedReferences ?? [])],
      data,
      definition.search.maxTimeMS,
      this.repository.call,
    );
  }
}

/** The id field's value in a row, as the text a path would hold; `undefined` when the row gives none. */
function keyOf(value: unknown, idField: string): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const key = (value as Record<string, unknown>)[idField];
  if (key === undefined || key === null || key === '') return undefined;
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined;
}
