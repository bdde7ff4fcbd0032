import { RouteCall } from '../call/route-call.js';
import { runWork } from '../controllers/serve-route.js';
import type { RoutePlan } from '../call/route-plan.js';
import type { ImportReport } from '../interfaces/import.interface.js';
import type { ModelRepository } from '../repository/model-repository.js';
import { answeredVirtuals } from '../utils/schema-virtuals.util.js';
import { createImportBatch } from './import-batch.js';
import type { ImportColumns } from './import-cells.js';
import { readImportFile, type ImportRequest } from './import-reader.js';
import { importQueryOf } from './import-request.js';

/**
 * What the handler of `POST /<plural>/import` does, for the request's call and under its admission
 * place: reads what the request asks (`?mode`, `?dryRun`, `?format` or the `Content-Type`), reads
 * the whole file within the resource's bounds (a file that cannot be read, or past a bound, is
 * refused whole before anything is written), and hands the batch to the route's work
 * (`import(batch)`, which runs it) for the report. Called by code, with no call among its
 * arguments (`this.import(batch)`), it only runs the work.
 */
export async function serveImport(controller: object, plan: RoutePlan, args: unknown[]): Promise<unknown> {
  const call = args[plan.row.params.length];
  if (!(call instanceof RouteCall)) return plan.work.apply(controller, args);
  const { repository } = controller as { repository: ModelRepository };
  const { definition } = repository;
  const { ticket } = call;
  ticket?.hold();
  try {
    const query = importQueryOf(call.request.query, call.request.headers['content-type']);
    const file = await readImportFile(call.request as ImportRequest, query.format, definition.search, importColumns(repository));
    // The batch writes in the request's context, handed explicitly: its rows are scoped, conditional and hooked as the request's.
    const batch = createImportBatch(repository.in(call.context), query, file.rows, file.ignored, call);
    return (await runWork(controller, call, [batch])) as ImportReport;
  } finally {
    ticket?.unhold();
    ticket?.end();
  }
}

/**
 * The columns an import skips (those an export writes and no write may: the version key,
 * timestamps, `readonly` fields, answered virtuals; `_id` and the id field are not among them, a
 * create refuses `_id`), the fields whose CSV cells hold JSON, and those whose cells are numbers or booleans.
 */
function importColumns({ definition }: ModelRepository): ImportColumns {
  const { fields, idField, schema } = definition;
  const ignored = new Set([...fields.protected, ...answeredVirtuals(schema)]);
  ignored.delete('_id');
  ignored.delete(idField);
  const scalars = new Map<string, 'number' | 'boolean'>();
  schema.eachPath((path, type) => {
    if (type.instance === 'Number') scalars.set(path, 'number');
    else if (type.instance === 'Boolean') scalars.set(path, 'boolean');
  });
  return { ignored, whole: new Set([...fields.openPrefixes, ...fields.documentArrays]), scalars };
}
