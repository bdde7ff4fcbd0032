import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { stringify } from 'csv-stringify/sync';
import mongoose, { type Connection } from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';
import { duration } from './export-table.js';
import { watchProcess } from './file-transfer.js';
import { spawnServer, stopServer } from './harness.js';
import { IMPORT_BENCH_FORMATS, IMPORT_SERVERS, importTable, rowsPerSecond, type ImportBenchFormat, type ImportRun, type ImportServer } from './import-table.js';
import { rotated } from './measure.js';
import { seed } from './seed.js';

/**
 * `npm run bench:import [-- --rows 10000] [--rounds <n>] [--formats csv,ndjson] [--quick]` (issue 27,
 * "Measured"): an import of N companies (default 10,000) as CSV and as NDJSON through the library's
 * route (`POST /companies/import`, `bench/servers/generated.ts` with `BENCH_IMPORT=1`) beside an
 * import written by hand with the same validation and `insertMany` batches of 500
 * (`bench/servers/import-handwritten.ts`), on the engine helper's engine (FerretDB on PostgreSQL), Express.
 *
 * The file: N companies (`import-<i>`, employees, a location), every other one with an owner among
 * `seed()`'s entrepreneurs (one per ten companies, none missing). Per round, per format (the formats'
 * order rotated each round), the two servers one after the other (their order rotated too: on this
 * machine the engine's speed drifts over minutes, so each ratio is of two imports seconds apart),
 * each a fresh process: a warm-up import of 200 rows in the same format (modules loaded, code
 * compiled), the collection emptied (`deleteMany`, then `compact`: FerretDB's `VACUUM ANALYZE`, so
 * no run reads a table of dead rows), half a second idle, then the whole file sent by one client,
 * timed from the request to the report's last byte, while the server's memory is watched
 * (`watchProcess`, as `bench:export`) and its CPU time read. Every import is checked: 200, a report
 * of N rows all created and none refused, and the collection holding N companies, the right number
 * of them with an owner; anything else fails the run (exit 1). The collection is emptied after
 * each run. Prints a Markdown table (`bench/import-table.ts`). `--quick`: 200 rows, one round.
 */
const argv = process.argv.slice(2);
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const quick = argv.includes('--quick');
const size = Number(option('--rows') ?? (quick ? 200 : 10_000));
const rounds = Number(option('--rounds') ?? (quick ? 1 : 3));
const formats = (option('--formats')?.split(',') ?? [...IMPORT_BENCH_FORMATS]) as ImportBenchFormat[];
const WARMUP_ROWS = 200;
/** The library's default `search.importMaxRows` and `importMaxBytes`: a larger file needs them raised on the generated server. */
const LIBRARY_MAX_ROWS = 10_000;
const LIBRARY_MAX_BYTES = 10 * 2 ** 20;
/** The hand-written server's batch, `BENCH_IMPORT_BATCH`. */
const HAND_BATCH = 500;
const LOCATIONS = ['Paris', 'Lyon', 'London', 'Berlin', 'Madrid'];
const MEDIA_TYPES: Record<ImportBenchFormat, string> = { csv: 'text/csv', ndjson: 'application/x-ndjson' };
/** A request idle this long fails the run. */
const TIMEOUT_MS = 600_000;

for (const format of formats) if (!(IMPORT_BENCH_FORMATS as readonly string[]).includes(format)) throw new Error(`bench:import: unknown format ${format}`);
if (!Number.isInteger(size) || size < 1 || !(rounds >= 1)) throw new Error('bench:import: --rows takes a positive integer, --rounds at least 1');

const engine = await startEngine();
const started = { at: new Date(), load: loadavg() };
const runs: ImportRun[] = [];
const db = `bench_import_${size}_${Date.now().toString(36)}`;
let failure: string | undefined;
let connection: Connection | undefined;
try {
  const { users } = await seed(engine.uri, db, Math.max(1, Math.round(size / 10)), 0);
  connection = await mongoose.createConnection(engine.uri, { dbName: db }).asPromise();
  const files = new Map(
    formats.map((format) => [
      format,
      { full: fileOf(format, companies(size, users)), warm: fileOf(format, companies(Math.min(WARMUP_ROWS, size), users, 'warm')) },
    ]),
  );
  const owned = companies(size, users).filter((company) => company.owner).length;
  for (let round = 1; round <= rounds; round++) {
    for (const [at, format] of rotated(formats, round - 1).entries()) {
      for (const server of rotated(IMPORT_SERVERS, round - 1 + at))
        runs.push(await measureImport(connection, files.get(format)!, owned, format, server, round));
    }
  }
} catch (error) {
  failure = error instanceof Error ? (error.stack ?? error.message) : String(error);
} finally {
  await connection?.dropDatabase().catch(() => undefined);
  await connection?.close();
  await engine.stop();
}
if (failure) {
  process.stderr.write(`\nFAILED: ${failure}\n`);
  process.exit(1);
}
print();

interface Company {
  niceName: string;
  owner?: string;
  employees: number;
  location: string;
}

/** The companies of a file: every other one owned by one of `users`, in turn. */
function companies(count: number, users: string[], prefix = 'import'): Company[] {
  return Array.from({ length: count }, (_, i) => ({
    niceName: `${prefix}-${i}`,
    ...(i % 2 === 0 && { owner: users[(i / 2) % users.length] }),
    employees: i % 200,
    location: LOCATIONS[i % LOCATIONS.length]!,
  }));
}

/** The file of `rows` in `format`: CSV with a header row (an empty cell where a company has no owner), or a JSON line per company. */
function fileOf(format: ImportBenchFormat, rows: Company[]): Buffer {
  if (format === 'ndjson') return Buffer.from(rows.map((row) => `${JSON.stringify(row)}\n`).join(''));
  return Buffer.from(stringify(rows, { header: true, columns: ['niceName', 'owner', 'employees', 'location'] }));
}

/** Empties the companies, and reclaims their space as autovacuum would (see `reset` in bench/seed.ts). */
async function empty(connection: Connection): Promise<void> {
  await connection.db!.collection('companies').deleteMany({});
  await connection.db!.command({ compact: 'companies' });
}

/** A fresh server, a warm-up import, the collection emptied, then the whole file imported and watched, and checked. */
async function measureImport(
  connection: Connection,
  file: { full: Buffer; warm: Buffer },
  owned: number,
  format: ImportBenchFormat,
  server: ImportServer,
  round: number,
): Promise<ImportRun> {
  const env: Record<string, string> = { BENCH_URI: engine.uri, BENCH_DB: db, BENCH_ADAPTER: 'express' };
  if (server === 'generated') {
    env.BENCH_IMPORT = '1';
    if (size > LIBRARY_MAX_ROWS) env.BENCH_IMPORT_MAX_ROWS = String(size);
    if (file.full.length > LIBRARY_MAX_BYTES) env.BENCH_IMPORT_MAX_BYTES = String(file.full.length);
  } else env.BENCH_IMPORT_BATCH = String(HAND_BATCH);
  const child = await spawnServer(server === 'generated' ? 'generated.js' : 'import-handwritten.js', env);
  const pid = child.process.pid!;
  const what = `${server} ${format} ${size} r${round}`;
  try {
    const warmRows = Math.min(WARMUP_ROWS, size);
    checkedReport(await post(child.port, format, file.warm), warmRows, `${what} warm-up`);
    await empty(connection);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idleMiB = rssKiB(pid) / 1024;
    const { result, cost } = await watchProcess(pid, () => post(child.port, format, file.full), 50);
    checkedReport(result, size, what);
    const companies = connection.db!.collection('companies');
    const [stored, withOwner] = await Promise.all([companies.countDocuments({}), companies.countDocuments({ owner: { $type: 'objectId' } })]);
    if (stored !== size || withOwner !== owned)
      throw new Error(`${what}: the collection holds ${stored} companies, ${withOwner} with an owner id, not ${size} and ${owned}`);
    const run: ImportRun = { format, rows: size, server, round, ms: result.ms, idleMiB, peakMiB: Math.max(cost.rssGrowth, cost.hwmGrowth), cpuMs: cost.cpuMs };
    process.stderr.write(
      `[import] ${what.padEnd(26)} ${duration(run.ms).padStart(9)} ${Math.round(rowsPerSecond(run)).toLocaleString('en').padStart(7)} rows/s  idle ` +
        `${idleMiB.toFixed(1)} MiB  peak +${cost.rssGrowth.toFixed(1)} (HWM +${cost.hwmGrowth.toFixed(1)}) MiB  CPU ${(cost.cpuMs / 1000).toFixed(2)} ` +
        `s  load ${loadavg()[0]!.toFixed(2)}\n`,
    );
    return run;
  } finally {
    await stopServer(child.process);
    await empty(connection);
  }
}

interface Answer {
  status: number;
  body: Buffer;
  ms: number;
}

/** One POST of a file, timed from the request to the answer's last byte. */
function post(port: number, format: ImportBenchFormat, file: Buffer): Promise<Answer> {
  const start = performance.now();
  const path = '/companies/import';
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'Content-Type': MEDIA_TYPES[format], 'Content-Length': file.length } },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks), ms: performance.now() - start }));
        response.once('error', reject);
      },
    );
    request.once('error', reject);
    request.setTimeout(TIMEOUT_MS, () => request.destroy(new Error(`${path}: idle for ${TIMEOUT_MS / 1000} s`)));
    request.end(file);
  });
}

/** A 200 whose report says `rows` rows, all created, none refused; else an error naming the import. */
function checkedReport(answer: Answer, rows: number, what: string): void {
  const text = answer.body.toString('utf8');
  if (answer.status !== 200) throw new Error(`${what}: answered ${answer.status} ${text.slice(0, 300)}`);
  const report = JSON.parse(text) as { rows: number; created: number; refused: number; errors: unknown[] };
  if (report.rows !== rows || report.created !== rows || report.refused !== 0) {
    throw new Error(
      `${what}: the report says ${report.rows} rows, ${report.created} created, ${report.refused} refused, not ${rows} created ` +
        `(${JSON.stringify(report.errors.slice(0, 3))})`,
    );
  }
}

/** A process's `VmRSS`, KiB. */
function rssKiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
}

function print(): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  const idle = (server: ImportServer) => {
    const values = runs.filter((run) => run.server === server).map((run) => run.idleMiB);
    return values.length ? `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} MiB` : '–';
  };
  const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
  out();
  out(
    `Imports (issue 27): ${size.toLocaleString('en')} companies, ${rounds} round(s), each import from a fresh server after a warm-up of ` +
      `${Math.min(WARMUP_ROWS, size)} rows into an emptied collection; Express; hand-written batches of ${HAND_BATCH}`,
  );
  out(
    `Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; engine: ` +
      `${engine.description.split(' at ')[0]}`,
  );
  out(`Load average at the start ${load(started.load)}, at the end ${load(loadavg())} (${started.at.toISOString()} to ${new Date().toISOString()})`);
  out(`Idle RSS before the import: generated ${idle('generated')}, hand-written ${idle('hand')}`);
  out(
    "Rows/s: median (range) of the rounds; ratio: the median of each round's generated/hand-written rows/s (below 1: the library is slower); times, CPU " +
      'and peak RSS: medians (max) of the rounds',
  );
  out();
  for (const line of importTable(runs)) out(line);
}
