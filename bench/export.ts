import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { cpus, loadavg, totalmem } from 'node:os';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import mongoose from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';
import {
  EXPORT_BENCH_FORMATS,
  EXPORT_SERVERS,
  exportTable,
  RSS_TARGET_MIB,
  TIME_TARGET,
  type ExportBenchFormat,
  type ExportRun,
  type ExportServer,
} from './export-table.js';
import { watchProcess } from './file-transfer.js';
import { spawnServer, stopServer } from './harness.js';
import { rotated } from './measure.js';
import { seed } from './seed.js';

/**
 * `npm run bench:export [-- --sizes 1000,100000] [--rounds <n>] [--formats csv,xlsx] [--adapter express|fastify] [--heap <MiB>] [--quick]`
 * (issue 27, "Measured"): an export of every company in each format through the library's route
 * (`GET /companies/export?format=…`, `bench/servers/generated.ts` with `BENCH_EXPORT=1`) beside the
 * same export written by hand with the driver's cursor and the same libraries
 * (`bench/servers/export-handwritten.ts`), on the engine helper's engine (FerretDB on PostgreSQL).
 *
 * Per size: `seed()`'s companies (one owner per ten). Per round, per format (the formats' order
 * rotated each round), the two servers one after the other (their order rotated too: on this
 * machine the engine's speed drifts over minutes, so each ratio is of two exports seconds apart),
 * each a fresh process: a warm-up export of 1,000 rows in the same format (modules loaded, code
 * compiled), half a second idle, then the whole export downloaded by one client, timed from the
 * request to its last byte, while the server's memory is watched (`watchProcess`: `VmRSS` sampled
 * every 50 ms, `VmHWM` reset before and read after; the peak is the higher of the two, minus `VmRSS`
 * just before the request) and its CPU time read. Every download is checked: 200, and the rows of
 * its format (CSV parsed, each NDJSON line and the JSON array parsed, the XLSX sheet read by
 * exceljs's streaming reader) as many as the companies; anything else fails the run (exit 1).
 * Prints a Markdown table (`bench/export-table.ts`). `--quick`: 200 companies, one round.
 */
const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes('--quick');
const sizes = (option('--sizes') ?? (quick ? '200' : '100000')).split(',').map(Number);
const rounds = Number(option('--rounds') ?? (quick ? 1 : 3));
const formats = (option('--formats')?.split(',') ?? [...EXPORT_BENCH_FORMATS]) as ExportBenchFormat[];
const adapter = option('--adapter') === 'fastify' ? 'fastify' : 'express';
/** `--heap <MiB>`: both servers run with `--max-old-space-size=<MiB>` (is the growth live memory, or garbage V8 has not yet collected?). */
const heap = option('--heap');
const WARMUP_ROWS = 1000;
/** The library's default `search.exportMaxRows`: a larger collection needs the bound raised on the generated server. */
const LIBRARY_MAX_ROWS = 100_000;
/** A download idle this long fails the run. */
const TIMEOUT_MS = 300_000;
const MiB = 2 ** 20;

for (const format of formats) if (!(EXPORT_BENCH_FORMATS as readonly string[]).includes(format)) throw new Error(`bench:export: unknown format ${format}`);
if (sizes.some((size) => !Number.isInteger(size) || size < 1) || !(rounds >= 1))
  throw new Error('bench:export: --sizes takes positive integers, --rounds at least 1');

const engine = await startEngine();
const started = { at: new Date(), load: loadavg() };
const runs: ExportRun[] = [];
let failure: string | undefined;
try {
  for (const size of sizes) await measureSize(size);
} catch (error) {
  failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
} finally {
  await engine.stop();
}
if (failure) {
  process.stderr.write(`\nFAILED: ${failure}\n`);
  process.exit(1);
}
print();

async function measureSize(size: number): Promise<void> {
  const db = `bench_export_${size}_${Date.now().toString(36)}`;
  const seeding = performance.now();
  await seed(engine.uri, db, Math.max(1, Math.round(size / 10)), size);
  process.stderr.write(`[export] ${size.toLocaleString('en')} companies seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const [at, format] of rotated(formats, round - 1).entries()) {
        for (const server of rotated(EXPORT_SERVERS, round - 1 + at)) runs.push(await measureExport(db, size, format, server, round));
      }
    }
  } finally {
    const connection = await mongoose.createConnection(engine.uri, { dbName: db }).asPromise();
    await connection.dropDatabase();
    await connection.close();
  }
}

/** A fresh server, a warm-up export, then the whole export downloaded and watched. */
async function measureExport(db: string, size: number, format: ExportBenchFormat, server: ExportServer, round: number): Promise<ExportRun> {
  const env: Record<string, string> = { BENCH_URI: engine.uri, BENCH_DB: db, BENCH_ADAPTER: adapter };
  if (heap) env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --max-old-space-size=${Number(heap)}`.trim();
  if (server === 'generated') Object.assign(env, { BENCH_EXPORT: '1' }, size > LIBRARY_MAX_ROWS && { BENCH_EXPORT_MAX_ROWS: String(size) });
  const child = await spawnServer(server === 'generated' ? 'generated.js' : 'export-handwritten.js', env);
  const pid = child.process.pid!;
  const what = `${server} ${format} ${size} r${round}`;
  try {
    const warmRows = Math.min(WARMUP_ROWS, size);
    await checked(await download(child.port, `/companies/export?format=${format}&limit=${warmRows}`), format, warmRows, `${what} warm-up`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idleMiB = rssKiB(pid) / 1024;
    const { result, cost } = await watchProcess(pid, () => download(child.port, `/companies/export?format=${format}`), 50);
    await checked(result, format, size, what);
    const run: ExportRun = {
      format,
      size,
      server,
      round,
      ms: result.ms,
      bytes: result.body.length,
      idleMiB,
      peakMiB: Math.max(cost.rssGrowth, cost.hwmGrowth),
      cpuMs: cost.cpuMs,
    };
    process.stderr.write(
      `[export] ${what.padEnd(28)} ${(run.ms / 1000).toFixed(2).padStart(7)} s ${run.bytes.toLocaleString('en').padStart(12)} bytes  idle ` +
        `${idleMiB.toFixed(1)} MiB  peak +${cost.rssGrowth.toFixed(1)} (HWM +${cost.hwmGrowth.toFixed(1)}) MiB  CPU ${(cost.cpuMs / 1000).toFixed(2)} ` +
        `s  load ${loadavg()[0]!.toFixed(2)}\n`,
    );
    return run;
  } finally {
    await stopServer(child.process);
  }
}

interface Download {
  status: number;
  type: string;
  body: Buffer;
  ms: number;
}

/** One GET, its body kept (the client's memory is not measured), timed from the request to the last byte. */
function download(port: number, path: string): Promise<Download> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path }, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers['content-type']),
          body: Buffer.concat(chunks),
          ms: performance.now() - start,
        }),
      );
      response.once('error', reject);
      response.once('aborted', () => reject(new Error(`${path}: the transfer was aborted`)));
    });
    request.once('error', reject);
    request.setTimeout(TIMEOUT_MS, () => request.destroy(new Error(`${path}: idle for ${TIMEOUT_MS / 1000} s`)));
    request.end();
  });
}

/** A 200 whose body holds `rows` rows of `format`, else an error naming the export. */
async function checked(answer: Download, format: ExportBenchFormat, rows: number, what: string): Promise<void> {
  if (answer.status !== 200) throw new Error(`${what}: answered ${answer.status} ${answer.body.subarray(0, 300).toString('utf8')}`);
  const found = await rowsOf(format, answer.body);
  if (found !== rows) throw new Error(`${what}: ${found} rows, not ${rows}`);
}

/** The documents of an export: its rows without the header (CSV, XLSX), its lines (NDJSON), its array's items (JSON). */
async function rowsOf(format: ExportBenchFormat, body: Buffer): Promise<number> {
  switch (format) {
    case 'csv':
      return (parse(body, { bom: true }) as unknown[]).length - 1;
    case 'ndjson':
      return body
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown).length;
    case 'json':
      return (JSON.parse(body.toString('utf8')) as unknown[]).length;
    case 'xlsx': {
      let count = 0;
      for await (const sheet of new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([body]), {})) {
        for await (const row of sheet as AsyncIterable<unknown>) count += row ? 1 : 0;
      }
      return count - 1;
    }
  }
}

/** A process's `VmRSS`, KiB. */
function rssKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

function print(): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const idle = (server: ExportServer) => {
    const values = runs.filter((run) => run.server === server).map((run) => run.idleMiB);
    return values.length ? `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} MiB` : '–';
  };
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  out();
  out(
    `Exports (issue 27): ${rounds} round(s), each export from a fresh server after a warm-up of ${WARMUP_ROWS} rows; ` +
      `${adapter === 'fastify' ? 'Fastify' : 'Express'}${heap ? `; servers run with --max-old-space-size=${Number(heap)}` : ''}`,
  );
  out(
    `Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; engine: ` +
      `${engine.description.split(' at ')[0]}`,
  );
  out(`Load average at the start ${load(started.load)}, at the end ${load(loadavg())} (${started.at.toISOString()} to ${new Date().toISOString()})`);
  out(`Idle RSS before the export: generated ${idle('generated')}, hand-written ${idle('hand')}`);
  out(
    `Times: median (range) of the rounds; ratio: the median of each round's generated/hand-written; peak RSS: median (max) of the rounds; targets: ratio ≤ ` +
      `${TIME_TARGET}, highest peak ≤ ${RSS_TARGET_MIB} MiB (1 MiB = ${MiB} bytes)`,
  );
  out();
  for (const line of exportTable(runs)) out(line);
}
