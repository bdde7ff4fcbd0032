import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEngine } from '../scripts/mongo-engine.js';
import { SCENARIOS, SERVERS, onlyArguments, scenariosFor, selectScenarios, serverApp, type BenchRequest, type Ids, type Scenario, type ServerName } from './scenarios.js';
import { validMeasure, type Measure } from './measure.js';
import { expressTable, fastifyTable, type Results } from './table.js';
import { reset, seed } from './seed.js';

/**
 * `npm run bench [-- --quick]`: one engine, one data set, five servers one after another (each
 * in its own process): the generated routes and the hand-written controller on Express, the peer,
 * and the two Nest apps again on Fastify (`BENCH_ADAPTER=fastify`; in `--quick` on a few scenarios,
 * see `QUICK_FASTIFY_SCENARIOS`), autocannon driving load from this process. The servers take turns, round
 * after round (A B C A B C...), so that a noisy interval of the machine does not decide a ratio.
 * Prints, per scenario and server, the median requests/s with the spread of the rounds and the
 * p50/p99 latency of the median round, and the ratios of the medians generated/hand-written and
 * generated/peer; then a second table for Fastify: generated/hand-written there, and generated on
 * Fastify / generated on Express. A scenario that completed no request, or met an error, a timeout or a non-2xx
 * answer, fails the run with its reason: no number is printed from an invalid run.
 * `--only <text>` (repeatable) runs the scenarios whose name contains one of the texts, and skips
 * the scale measures.
 */
const quick = process.argv.includes('--quick');
const scaleOnly = process.argv.includes('--scale-only');
const only = onlyArguments(process.argv);
const scenarios = selectScenarios(SCENARIOS, only);
const here = dirname(fileURLToPath(import.meta.url));
// --quick checks that the harness works, not how fast anything is: a fixed number of requests per
// scenario, so that a slow search on a busy machine still completes some (a timed run of 2 s once
// completed none). The full run is timed.
const plan = quick
  ? { users: 200, companies: 2000, rounds: 2, warmup: { connections: 8, amount: 8 }, load: { connections: 8, amount: 24 } }
  : { users: 500, companies: 5000, rounds: 3, warmup: { connections: 8, duration: 3 }, load: { connections: 8, duration: 10 } };
// FerretDB v1 filters in Go after reading every document (only _id lookups are pushed down), so a
// search over 100k documents takes seconds there; that size is measured on a real MongoDB.
const SIZES = quick ? [1000] : process.env.MONGODB_URI ? [1000, 10000, 100000] : [1000, 5000, 20000];
// 100 per location: the serialization scenario's page is full.
const VENTURES = 500;


const engine = await startEngine();
const dbName = `bench_${Date.now().toString(36)}`;
try {
  const data = await seed(engine.uri, dbName, scaleOnly ? 10 : plan.users, scaleOnly ? 10 : plan.companies, VENTURES);
  const ids = pick(data);
  const results: Results = new Map();
  for (let round = 1; round <= (scaleOnly ? 0 : plan.rounds); round++) {
    for (const server of SERVERS) {
      // One process per app setup: the scenarios that need a global ValidationPipe get their own.
      for (const setup of setups(scenarios)) {
        const served = scenariosFor(server, scenarios, quick).filter((scenario) => scenario.setup === setup);
        if (served.length === 0) continue;
        await reset(engine.uri, dbName);
        const child = await startServer(server, engine.uri, dbName, setup);
        try {
          for (const scenario of served) {
            const build = scenario.request[serverApp(server).app]!;
            const row = results.get(scenario.name) ?? {};
            const measured = await measure(child.port, () => build(ids), plan.load, plan.warmup, `${server} ${scenario.name}`);
            (row[server] ??= []).push(measured);
            results.set(scenario.name, row);
            process.stderr.write(`round ${round} ${server.padEnd(19)} ${scenario.name.padEnd(32)} ${Math.round(measured.rps)} req/s\n`);
          }
        } finally {
          await stopServer(child.process);
        }
      }
    }
  }
  if (!scaleOnly) print(results);
  if (only.length === 0) await scale(engine.uri);
} finally {
  await engine.stop();
}

/** Boot time and memory with 10, 100 and 500 resources; search and reverse latency as the data grows. */
async function scale(uri: string): Promise<void> {
  const lines = ['', '| resources | boot (forRoot to init) | RSS after boot | heap used |', '|---|---|---|---|'];
  for (const count of quick ? [10, 100] : [10, 100, 500]) {
    const { stdout } = await run(process.execPath, [join(here, 'boot.js'), String(count)], { BENCH_URI: uri, BENCH_DB: `boot_${count}` });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { bootMs: number; rssMb: number; heapMb: number };
    lines.push(`| ${count} | ${result.bootMs} ms | ${result.rssMb} MiB | ${result.heapMb} MiB |`);
  }
  lines.push('', '| companies | scenario (one request at a time) | generated | hand-written | hand-written p50 / generated p50 |', '|---|---|---|---|---|');
  for (const size of SIZES) {
    const db = `bench_size_${size}`;
    const data = await seed(uri, db, Math.max(10, size / 10), size);
    for (const scenario of SCENARIOS.filter((candidate) => candidate.name.startsWith('search (POST') || candidate.name === 'reverse reference (GET)')) {
      const row: Partial<Record<ServerName, Measure>> = {};
      for (const server of ['generated', 'handwritten'] as const) {
        const child = await startServer(server, uri, db);
        try {
          const ids = pick(data);
          const oneAtATime = { connections: 1, amount: quick ? 3 : 10 };
          row[server] = await measure(child.port, () => scenario.request[server]!(ids), oneAtATime, { connections: 1, amount: 3 }, `${server} ${scenario.name} on ${size}`);
        } finally {
          await stopServer(child.process);
        }
      }
      const show = (m: Measure) => `p50 ${m.p50} ms, p99 ${m.p99} ms`;
      lines.push(`| ${size} | ${scenario.name} | ${show(row.generated!)} | ${show(row.handwritten!)} | ${(row.handwritten!.p50 / row.generated!.p50).toFixed(2)} |`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The app setups the scenarios need, in the order they first appear (`undefined`: the plain apps). */
function setups(list: Scenario[]): Array<Scenario['setup']> {
  return [...new Set(list.map((scenario) => scenario.setup))];
}

function run(command: string, args: string[], env: Record<string, string>): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

function pick(data: { users: string[]; companies: string[] }): Ids {
  let u = 0;
  let c = 0;
  return {
    user: () => data.users[u++ % data.users.length],
    company: () => data.companies[(c += 7) % data.companies.length],
  };
}

/** How a scenario is driven: a number of connections, for a duration (seconds) or a number of requests. */
interface Load {
  connections: number;
  duration?: number;
  amount?: number;
}

/**
 * A warm-up, then the measured run. One connection and an amount measure latency as the data grows
 * (a search that takes seconds would never finish in a timed run).
 */
async function measure(port: number, next: () => BenchRequest, load: Load, warmup: Load, what: string): Promise<Measure> {
  const run = ({ connections, duration, amount }: Load) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      ...(amount ? { amount } : { duration }),
      // Searches over 100k documents on FerretDB take seconds; the default 10 s would count them as errors.
      timeout: 60,
      requests: [{ setupRequest: (request) => ({ ...request, ...toRequest(next()) }) }],
    });
  await run(warmup);
  return validMeasure(await run(load), what);
}

function toRequest(call: BenchRequest) {
  return {
    method: call.method,
    path: call.path,
    headers: { 'content-type': 'application/json', ...call.headers },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  };
}

async function startServer(name: ServerName, uri: string, db: string, setup?: Scenario['setup']): Promise<{ process: ChildProcess; port: number }> {
  const port = await freePort();
  const { app, adapter } = serverApp(name);
  const child = spawn(process.execPath, [join(here, 'servers', `${app}.js`)], {
    env: { ...process.env, BENCH_URI: uri, BENCH_DB: db, BENCH_PORT: String(port), BENCH_PIPES: setup === 'pipes' ? '1' : '', BENCH_ADAPTER: adapter },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} server exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve();
    });
  });
  return { process: child, port };
}

async function stopServer(child: ChildProcess): Promise<void> {
  // Let the last requests autocannon sent finish before the server closes its connections.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function print(results: Results): void {
  const lines = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`,
    `Data: ${plan.users} entrepreneurs, ${plan.companies} companies, ${VENTURES} ventures; ${plan.load.connections} connections; per scenario ${'amount' in plan.load ? `${plan.load.amount} requests after ${plan.warmup.amount}` : `${plan.load.duration} s after ${plan.warmup.duration} s`} of warm-up; ${plan.rounds} rounds (servers alternating; median, with the range of the rounds)${quick ? " (--quick: a check that the harness works; autocannon's clock ticks in whole seconds, so these requests/s say nothing)" : ''}`,
    '',
    'Express:',
    '',
    ...expressTable(scenarios, results),
    '',
    `Fastify (the two Nest apps on @nestjs/platform-fastify${quick ? '; --quick runs a few scenarios there' : ''}):`,
    '',
    ...fastifyTable(scenarios, results),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
