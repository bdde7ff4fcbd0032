import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePorts } from '../scripts/mongo-engine.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validMeasure, type Measure } from './measure.js';
import { serverApp, type BenchRequest, type Ids, type Scenario, type ServerName } from './scenarios.js';

/** What the benchmark scripts share: servers in their own processes, and autocannon driving them. */

const here = dirname(fileURLToPath(import.meta.url));

/** Runs a command to its end; its stdout, or an error naming its exit code. */
export function run(command: string, args: string[], env: Record<string, string>): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`))));
  });
}

/**
 * Ids from the seeded data, in turn: every request names another document.
 *
 * `companyAndNewOwner()` gives a company and an owner it does not have, for the writes of a
 * reference. `seed()` gives company k the owner user k mod users; the k-th company's v-th visit gets
 * user (k + 1 + v mod (users - 1)) mod users, never its seeded owner nor the one its last visit
 * set, so every such write changes the document on every server. Until 2026-11-29 the scenario
 * took `company()` and `user()` in turn: the companies came back every 5,000 requests and the users
 * every 500, so from the second pass on each company was given the owner it had, an update that
 * changed nothing, which FerretDB answers without writing (about twice as fast), while the
 * generated routes' version increment made every one of theirs a write.
 */
export function pick(data: { users: string[]; companies: string[] }): Ids {
  let u = 0;
  let c = 0;
  const visits = new Map<number, number>();
  return {
    user: () => data.users[u++ % data.users.length],
    company: () => data.companies[(c += 7) % data.companies.length],
    companyAndNewOwner: () => {
      const k = (c += 7) % data.companies.length;
      const visit = visits.get(k) ?? 0;
      visits.set(k, visit + 1);
      const owner = (k + 1 + (visit % Math.max(1, data.users.length - 1))) % data.users.length;
      return { company: data.companies[k], owner: data.users[owner] };
    },
  };
}

/** How a scenario is driven: a number of connections, for a duration (seconds) or a number of requests. */
export interface Load {
  connections: number;
  duration?: number;
  amount?: number;
  /** Requests per second over all connections (autocannon's `overallRate`): a fixed rate, for a measure of CPU per request. */
  rate?: number;
}

/**
 * A warm-up, then the measured run. One connection and an amount measure latency as the data grows
 * (a search that takes seconds would never finish in a timed run).
 */
export async function measure(
  port: number,
  next: () => BenchRequest,
  load: Load,
  warmup: Load,
  what: string,
  afterWarmup?: () => Promise<void>,
): Promise<Measure> {
  const run = ({ connections, duration, amount, rate }: Load) =>
    autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      ...(amount ? { amount } : { duration }),
      ...(rate && { overallRate: rate }),
      // Searches over 100k documents on FerretDB take seconds; the default 10 s would count them as errors.
      timeout: 60,
      requests: [{ setupRequest: (request) => ({ ...request, ...toRequest(next()) }) }],
    });
  // A warm-up of no requests (--quick, a check of the harness) is skipped: each run lasts a tick of autocannon's clock, a second.
  if (warmup.amount !== 0) await run(warmup);
  await afterWarmup?.();
  return validMeasure(await run(load), what);
}

export function toRequest(call: BenchRequest) {
  return {
    method: call.method,
    path: call.path,
    headers: { 'content-type': 'application/json', ...call.headers },
    body: call.body === undefined ? undefined : JSON.stringify(call.body),
  };
}

/**
 * The database commands one request costs a server started with `BENCH_COMMANDS_PORT=<commandsPort>`
 * (see `bench/servers/serve.ts`), by name in the order started: the names the server recorded
 * between before and after the request. Sent alone, so no other request's commands are counted; an
 * answer other than 2xx is an error, as in a measure.
 */
export async function countCommands(port: number, commandsPort: number, call: BenchRequest, what: string): Promise<string[]> {
  const recorded = async () => (await (await fetch(`http://127.0.0.1:${commandsPort}/`)).json()) as string[];
  const before = (await recorded()).length;
  const { path, ...request } = toRequest(call);
  const response = await fetch(`http://127.0.0.1:${port}${path}`, request);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`benchmark ${what}: commands not counted (answered ${response.status})`);
  return (await recorded()).slice(before);
}

/**
 * Starts a server of the rotation in its own process and waits for its READY line. `env` is added
 * to its environment (the profile sets `BENCH_PROFILE` there).
 */
export async function startServer(
  name: ServerName,
  uri: string,
  db: string,
  setup?: Scenario['setup'],
  env: Record<string, string> = {},
): Promise<{ process: ChildProcess; port: number }> {
  const { app, adapter } = serverApp(name);
  return spawnServer(`${app}.js`, { ...env, BENCH_URI: uri, BENCH_DB: db, BENCH_PIPES: setup === 'pipes' ? '1' : '', BENCH_ADAPTER: adapter });
}

/**
 * Starts `bench/servers/<script>` in its own process on a free port (`BENCH_PORT`), `env` added to
 * its environment, and waits for its READY line.
 */
export async function spawnServer(script: string, env: Record<string, string>): Promise<{ process: ChildProcess; port: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(here, 'servers', script)], {
    env: { ...process.env, ...env, BENCH_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('READY')) resolve();
    });
  });
  return { process: child, port };
}

/** Starts the CPU profile of a server started with `BENCH_PROFILE` (see `bench/servers/serve.ts`). */
export async function startProfiling(child: ChildProcess): Promise<void> {
  const started = new Promise<void>((resolve) => {
    const onData = (chunk: Buffer) => {
      if (!chunk.toString().includes('PROFILING')) return;
      child.stdout!.off('data', onData);
      resolve();
    };
    child.stdout!.on('data', onData);
  });
  child.kill('SIGUSR2');
  await started;
}

/** Stops a server with SIGTERM, once its last requests are answered, and waits for its exit. */
export async function stopServer(child: ChildProcess): Promise<void> {
  // Let the last requests autocannon sent finish before the server closes its connections.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A free port for a server, outside the ephemeral range (see `freePorts` in scripts/engine/ports.ts: no client can connect to itself there). */
export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

/** The CPU time a process has used, user and system, in microseconds (Linux: `/proc/<pid>/stat`, in clock ticks of 10 ms). */
export function cpuMicroseconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
