import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { freePort, pick, startServer, stopServer, toRequest } from './harness.js';
import { SCENARIOS, countArgument, onlyArguments, selectScenarios, serverApp, type ServerName } from './scenarios.js';
import { reset, seed } from './seed.js';
import type { TraceEvent } from './servers/serve.js';
import { splitTrace, type TraceSplit } from './trace-split.js';

/**
 * `npm run bench:trace [-- --only <text>] [-- --requests <n>] [-- --blocks]`: where one request's
 * time goes, the generated routes beside the hand-written controller. Each server runs with
 * `BENCH_TRACE_PORT` (the moments of each request and of each database command it sends, on one
 * clock, see `serveTrace`); the four servers (both apps, both platforms) take the scenario's
 * requests one at a time, in turn (`--blocks`: each server its requests back to back, as
 * `npm run bench -- --one-at-a-time` sends them), `n` each (20 by default) after 3 of warm-up.
 * Each request's time in the server is split into the time a database command was in flight (the
 * engine's) and the time none was (Node: the framework, the library or the hand-written code, the
 * driver); the time at the client is beside them. Printed: the medians, per scenario and server.
 * Scenarios: `--only` as for `npm run bench`, else the filtered search and the writes.
 *
 * `--quick` (CI's check that the harness works): 500 companies, the filtered search, 2 requests after 1.
 *
 * The split answers the question a throughput ratio cannot: whether a gap between the two apps is
 * the library's own time (outside) or the engine's answer to the same commands (engine).
 */
const quick = process.argv.includes('--quick');
const only = onlyArguments(process.argv);
const requests = quick ? 2 : (countArgument(process.argv, 'requests') ?? 20);
const WARMUP = quick ? 1 : 3;
/** `--blocks`: each server takes its requests back to back, as `npm run bench -- --one-at-a-time` sends them, instead of in turn. */
const blocks = process.argv.includes('--blocks');
const DATA = quick ? { users: 50, companies: 500 } : { users: 500, companies: 5000 };
const DEFAULT = quick ? ['search filtered on owner.niceName'] : ['search filtered on owner.niceName', 'modify', 'create'];
const scenarios = selectScenarios(SCENARIOS, only.length ? only : DEFAULT).filter((scenario) => scenario.request.generated && scenario.request.handwritten);
const SERVERS: ServerName[] = ['generated', 'handwritten', 'generated-fastify', 'handwritten-fastify'];

const engine = await startEngine();
const dbName = `trace_${Date.now().toString(36)}`;
try {
  const ids = pick(await seed(engine.uri, dbName, DATA.users, DATA.companies, 500));
  const lines = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`,
    `Data: ${DATA.users} entrepreneurs, ${DATA.companies} companies; one request at a time, ` +
      `${blocks ? 'each server its requests back to back' : 'the servers in turn'}, ${requests} each after ${WARMUP} of warm-up; medians`,
    '',
    '| scenario | server | time at the client | time in the server | a command in flight (engine) | no command in flight (Node) | commands |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const scenario of scenarios) {
    await reset(engine.uri, dbName);
    const servers = await Promise.all(
      SERVERS.map(async (name) => {
        const tracePort = await freePort();
        const child = await startServer(name, engine.uri, dbName, scenario.setup, { BENCH_TRACE_PORT: String(tracePort) });
        return { name, child, tracePort, splits: [] as Array<TraceSplit & { client: number }> };
      }),
    );
    try {
      const send = async (server: (typeof servers)[number], n: number) => {
        const split = await traced(server.child.port, server.tracePort, scenario.request[serverApp(server.name).app]!(ids), `${server.name} ${scenario.name}`);
        if (n >= WARMUP) server.splits.push(split);
      };
      if (blocks) {
        for (const server of servers) for (let n = 0; n < WARMUP + requests; n++) await send(server, n);
      } else {
        for (let n = 0; n < WARMUP + requests; n++) for (const server of servers) await send(server, n);
      }
    } finally {
      await Promise.all(servers.map((server) => stopServer(server.child.process)));
    }
    for (const { name, splits } of servers) {
      const ms = (key: keyof TraceSplit | 'client') => `${median(splits.map((split) => split[key])).toFixed(1)} ms`;
      lines.push(
        `| ${scenario.name} | ${name} | ${ms('client')} | ${ms('total')} | ${ms('engine')} | ${ms('outside')} | ` +
          `${median(splits.map((split) => split.commands))} |`,
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await engine.stop();
}

/** Sends one request alone and splits its traced time; an answer other than 2xx is an error. */
async function traced(port: number, tracePort: number, call: Parameters<typeof toRequest>[0], what: string): Promise<TraceSplit & { client: number }> {
  const events = async () => (await (await fetch(`http://127.0.0.1:${tracePort}/`)).json()) as TraceEvent[];
  await events();
  const { path, ...request } = toRequest(call);
  const sent = performance.now();
  const response = await fetch(`http://127.0.0.1:${port}${path}`, request);
  await response.arrayBuffer();
  const client = performance.now() - sent;
  if (!response.ok) throw new Error(`trace of ${what}: answered ${response.status}`);
  // The answer's `finish` event may follow the client's last byte by a tick.
  for (let tries = 0; tries < 100; tries++) {
    const recorded = await events();
    if (recorded.some((event) => event.what === 'answered')) return { ...splitTrace(recorded), client };
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`trace of ${what}: the server recorded no answer`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
