import autocannon from 'autocannon';
import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { cpuMicroseconds, pick, spawnServer, stopServer, toRequest } from './harness.js';
import { countArgument, type BenchRequest } from './scenarios.js';
import { seed } from './seed.js';

/**
 * `npm run bench:shed [-- --seconds 5 --quick]`: what a refused request costs the server (issue 41,
 * item 2). The generated server runs with a fixed admission limit of one request at work and none
 * waiting (`BENCH_ADMISSION=1,0`); one connection keeps that place taken with a slow search (the
 * companies with their owners expanded, one after the other), while 50 connections send a `GET` of
 * one document, then a `POST` search with a JSON body: nearly all of them are answered 503
 * `MR_OVERLOADED`. Printed per platform and request: the answers per second, the share of 503s, and
 * the server's CPU time per answer (user + system, `/proc/<pid>/stat`, over the run), beside the CPU
 * of one admitted `GET` (the default limit, 8 connections) for scale.
 */
const quick = process.argv.includes('--quick');
const seconds = countArgument(process.argv, 'seconds') ?? (quick ? 1 : 5);

interface Run {
  answers: number;
  shed: number;
  cpu: number;
}

/** `connections` clients sending `next()` for `seconds` to `port`, with the server's CPU time over the run. */
async function load(port: number, pid: number, connections: number, next: () => BenchRequest): Promise<Run> {
  const before = cpuMicroseconds(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    timeout: 60,
    requests: [{ setupRequest: (request) => ({ ...request, ...toRequest(next()) }) }],
  });
  const cpu = cpuMicroseconds(pid) - before;
  const answers = result.requests.total;
  const shed = result.statusCodeStats?.['503']?.count ?? 0;
  if (result.errors > 0 || result.timeouts > 0) throw new Error(`bench:shed: ${result.errors} errors, ${result.timeouts} timeouts`);
  return { answers, shed, cpu };
}

const engine = await startEngine();
const dbName = `shed_${Date.now().toString(36)}`;
const lines: string[] = [];
try {
  const ids = pick(await seed(engine.uri, dbName, quick ? 50 : 500, quick ? 500 : 5000));
  const getOne = (): BenchRequest => ({ method: 'GET', path: `/company/${ids.company()}` });
  const search = (): BenchRequest => ({ method: 'POST', path: '/companies', body: { query: { location: 'Paris', employees: { $gte: 10 } }, limit: 20 } });
  const slow = (): BenchRequest => ({ method: 'GET', path: '/companies?limit=100&expand=owner' });
  lines.push('| platform | request | answers/s | 503 share | CPU per answer |', '|---|---|---|---|---|');
  for (const adapter of ['express', 'fastify'] as const) {
    const env = { BENCH_URI: engine.uri, BENCH_DB: dbName, BENCH_ADAPTER: adapter };
    const admitted = await spawnServer('generated.js', env);
    try {
      await load(admitted.port, admitted.process.pid!, 8, getOne);
      const run = await load(admitted.port, admitted.process.pid!, 8, getOne);
      lines.push(row(adapter, 'GET one, admitted (default limit, 8 connections)', run));
    } finally {
      await stopServer(admitted.process);
    }
    const server = await spawnServer('generated.js', { ...env, BENCH_ADMISSION: '1,0' });
    try {
      // The one place, kept taken: a slow search after another on one connection, for as long as the measures run.
      const holder = autocannon({
        url: `http://127.0.0.1:${server.port}`,
        connections: 1,
        duration: 4 * seconds + 4,
        timeout: 60,
        requests: [{ ...toRequest(slow()) }],
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await load(server.port, server.process.pid!, 50, getOne);
      lines.push(row(adapter, 'GET one, 50 connections, 1 place', await load(server.port, server.process.pid!, 50, getOne)));
      lines.push(row(adapter, 'POST search (JSON body), 50 connections, 1 place', await load(server.port, server.process.pid!, 50, search)));
      await holder;
    } finally {
      await stopServer(server.process);
    }
  }
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`);
  console.log(`${seconds} s per measure (after one of warm-up); CPU per answer over all answers of the run, 503s and admitted alike\n`);
  console.log(lines.join('\n'));
} finally {
  await engine.stop();
}

function row(adapter: string, what: string, run: Run): string {
  const share = run.answers ? (100 * run.shed) / run.answers : 0;
  const cpu = run.cpu / Math.max(1, run.answers);
  return `| ${adapter === 'fastify' ? 'Fastify' : 'Express'} | ${what} | ${(run.answers / seconds).toFixed(0)} | ${share.toFixed(1)}% | ${cpu.toFixed(0)} µs |`;
}
