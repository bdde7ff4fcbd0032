import type { ServerResponse } from 'node:http';
import { pipeline, Readable, type Duplex } from 'node:stream';
import { Logger } from '@nestjs/common';
import { RouteCall, runCall } from '../call/route-call.js';
import type { RoutePlan } from '../call/route-plan.js';
import { withJsonValues } from '../controllers/json-output.util.js';
import { applyView, runWork } from '../controllers/serve-route.js';
import { contentDisposition } from '../files/file-name.util.js';
import type { ExportPages } from '../repository/model-repository.js';
import { answeredVirtuals } from '../utils/schema-virtuals.util.js';
import { exportColumns } from './export-columns.js';
import { EXPORT_FORMATS, exportFormatOf } from './export-formats.js';
import { exportStages, type ExportedDocument } from './export-writers.js';

const logger = new Logger('ModelRoutes');

/** Express's response, or Fastify's reply. */
type ExportResponse =
  ServerResponse | { raw: ServerResponse; code(status: number): unknown; header(name: string, value: string): unknown; send(payload: unknown): unknown };

/**
 * What an export route's handler does: runs the route's work as the request's call (the pages of
 * the documents to write, `ExportPages`), reads the first page under the request's admission place
 * (so that a refused search, a time-out or an unreachable database is answered in the error shape,
 * before any byte), gives the place back, and streams the rest in the request's format (`?format=`,
 * else `Accept`). Every page goes through what a search's answer goes through: expand, identifiers
 * as strings, the serialization view. A failure after the first byte aborts the transfer (the
 * client sees an incomplete response, never a file that looks whole); a client that goes away
 * stops the reads and closes the engine's cursor. Called by code, with no call among its
 * arguments, it only runs the work.
 */
export async function serveExport(controller: object, plan: RoutePlan, args: unknown[]): Promise<unknown> {
  const { params } = plan.row;
  const call = args[params.length];
  // The work takes the row's arguments but the response, which only this function writes to.
  const own = args.slice(0, params.length - 1);
  if (!(call instanceof RouteCall)) return plan.work.apply(controller, own);
  const bodyAt = params.indexOf('body');
  if (bodyAt >= 0) own[bodyAt] = call.bodyFor(own[bodyAt], plan.body?.dto);
  const format = exportFormatOf(call.request.query?.format, call.request.headers.accept);
  const search = call.search?.params;
  const definition = call.exported!;
  // The fields the request may read: its serialization view's, else the model's.
  const { readable, openPrefixes } = call.view?.fields ?? definition.fields;
  const wholes = [...definition.fields.documentArrays, ...(definition.files ?? []).map((file) => file.field)];
  const columns = exportColumns({ readable, openPrefixes, wholes }, search?.select, search?.select ? [] : answeredVirtuals(definition.schema));
  // Before any database work: a format the server cannot write (XLSX without exceljs) costs no query.
  const stages = await exportStages(format, columns, plan.names.source.name);
  const { ticket } = call;
  ticket?.hold();
  let pages: AsyncIterator<ExportedDocument[]>;
  let first: IteratorResult<ExportedDocument[]>;
  try {
    pages = ((await runWork(controller, call, own)) as ExportPages)[Symbol.asyncIterator]();
    // An app's override (its generator's code) reads the call in progress while its first page is made; the library's own pages need none.
    first = await (plan.ownWork ? pages.next() : runCall(call, () => pages.next()));
  } finally {
    // The first page is read: the rest is bounded by `admission.exports`, not by the requests' limit.
    ticket?.unhold();
    ticket?.end();
  }
  const { extension, mediaType } = EXPORT_FORMATS[format];
  const headers = {
    'Content-Type': mediaType,
    'Content-Disposition': contentDisposition('attachment', `${plan.names.source.plural}.${extension}`),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  };
  send(call.response as ExportResponse, headers, Readable.from(documents(call, first, pages), { objectMode: true }), stages);
  return undefined;
}

/** The documents of the pages, each page shaped as a search's answer is (expand, identifiers as strings, the view) as the request's call. */
async function* documents(
  call: RouteCall,
  first: IteratorResult<ExportedDocument[]>,
  pages: AsyncIterator<ExportedDocument[]>,
): AsyncGenerator<ExportedDocument> {
  try {
    for (let page = first; !page.done; page = await pages.next()) {
      const docs = page.value;
      if (call.expansion) await call.expansion.apply({ result: docs }, 'list', call.context);
      withJsonValues(docs);
      applyView(call, docs);
      yield* docs;
    }
  } finally {
    // Left early (the client went away, or a stage failed): the engine's cursor is closed.
    await pages.return?.();
  }
}

function send(response: ExportResponse, headers: Record<string, string>, source: Readable, stages: Duplex[]): void {
  const done = (error: NodeJS.ErrnoException | null) => {
    if (!error || error.code === 'ERR_STREAM_PREMATURE_CLOSE') return;
    logger.warn(`An export stopped before its end: ${error.message}`);
  };
  if ('raw' in response) {
    // Fastify streams the body, and destroys it (so the source) when its client goes away, or the response when it fails.
    response.code(200);
    for (const [name, value] of Object.entries(headers)) response.header(name, value);
    response.send(pipeline([source, ...stages] as unknown as [Readable, Duplex], done));
    return;
  }
  response.statusCode = 200;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  pipeline([source, ...stages, response] as unknown as [Readable, ServerResponse], (error) => {
    // A failure mid-stream aborts the transfer: the client sees an incomplete response.
    if (error && !response.destroyed) response.destroy();
    done(error);
  });
}
