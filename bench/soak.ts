import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { killSampleApp, loggedErrors, logMark, rssMiB, startSampleApp, type Adapter, type SampleApp } from './soak-app.js';
import { outage, type OutageResult } from './soak-outage.js';
import { burstTally, goodputRatio, sweepRow, sweepTable, type ClientMode, type SweepRow } from './soak-figures.js';
import { shutdown, type ShutdownResult } from './soak-shutdown.js';
import { burst, BURST_SEARCH, probeBurstSearch, seedBurstOwners, sweepStep, type SweepMeasure } from './soak-sweep.js';
import { drive, random, seed, type TrafficResult } from './soak-traffic.js';

/**
 * `npm run soak [-- --quick] [--adapter fastify] [--connections n] [--seconds n] [--seed n] [--graceful-stop] [--report-only]`:
 * the sample app in its own process, against an embedded FerretDB this script starts, driven by
 * autocannon with a mix of reads, searches and writes that are all meant to succeed; then the
 * same mix at rising connection counts by clients that honour `Retry-After` and clients that do
 * not (the goodput of each step), and a burst of slow searches at once; then two faults on the
 * same app: the database stopped and started again under load, and SIGTERM with requests in
 * flight. The database is killed (a crash); `--graceful-stop` stops it with SIGTERM, which
 * FerretDB drains (see BENCHMARKS.md for what the driver then does). Prints every figure and the
 * bound it is checked against, and exits with 1 when a check fails; `--report-only` prints the
 * same and exits with 0 whatever the checks say.
 */
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const reportOnly = argv.includes('--report-only');
const adapter: Adapter = option('adapter') === 'fastify' ? 'fastify' : 'express';
const randomSeed = number('seed') ?? 13;
const plan = {
  connections: number('connections') ?? (quick ? 50 : 200),
  seconds: number('seconds') ?? (quick ? 8 : 60),
  warmupSeconds: quick ? 3 : 10,
  settleSeconds: quick ? 3 : 10,
  users: quick ? 20 : 50,
  companies: quick ? 300 : 1000,
  // The sample's default is 5 s; --quick takes 3 s so that CI's outage is short.
  selectionTimeoutMs: quick ? 3000 : 5000,
  outage: { workers: 16, beforeSeconds: 1, downSeconds: quick ? 7 : 15, recoverySeconds: 30, crash: !argv.includes('--graceful-stop') },
  inFlight: quick ? 40 : 100,
  sweep: {
    // --quick keeps 100 connections, where issue 41 measured 98.8% shed with autocannon; 2.5 s a step, and only the clients
    // that honour Retry-After (both modes and the burst added about 42 s to CI's run on a busy machine; this one about 30 s).
    connections: quick ? [1, 8, 32, 100] : [1, 4, 8, 16, 32, 100],
    modes: (quick ? ['honours Retry-After'] : ['honours Retry-After', 'ignores Retry-After']) as ClientMode[],
    seconds: quick ? 2.5 : 10,
  },
  // The burst's condition across the reference matches this many users (search.maxRelationIds is 1000: one more is a 400).
  burst: { searches: 200, owners: 1000 },
};
/** The bounds checked, stated up front (see BENCHMARKS.md for why these values). */
const BOUNDS = {
  rssGrowthMiB: 64,
  // Server selection gives up after selectionTimeoutMS; the margin covers a loaded 2-core machine.
  unavailableWithinMs: plan.selectionTimeoutMs + 5000,
  recoveredWithinMs: plan.outage.recoverySeconds * 1000,
  shutdownWithinMs: 10000,
  // Half the client's time-out: the admission limit keeps what it admits well away from it.
  admittedP99Ms: 5000,
  // More clients than the app serves at once must not serve fewer: goodput at the sweep's largest step, against its best, clients honouring Retry-After.
  goodputRatio: 0.8,
  // The burst's admitted searches answer within this (the client of a slow search waits; 2 s is well inside maxTimeMS, 5 s).
  burstAdmittedP99Ms: 2000,
};

const failures: string[] = [];
const next = random(randomSeed);
const engine = await startEngine();
let app: SampleApp | undefined;
try {
  app = await startSampleApp(engine.uri, adapter, plan.selectionTimeoutMs);
  const started = app;
  header();
  line(`the app's output: ${started.logFile}`);
  const data = await seed(started.url, plan.users, plan.companies, next);
  line(`seeded ${data.users.length} users and ${data.companies.length} companies through the app`);
  await drive(started.url, data, plan.connections, plan.warmupSeconds, next);
  const rssWarm = rssMiB(started.process.pid!);
  const traffic = await drive(started.url, data, plan.connections, plan.seconds, next);
  const rssLoaded = rssMiB(started.process.pid!);
  await sleep(plan.settleSeconds * 1000);
  const rssSettled = rssMiB(started.process.pid!);
  reportSoak(traffic, rssWarm, rssLoaded, rssSettled);
  // The sweep and the burst break apart: the faults below still run after either.
  await apart('the concurrency sweep', async () => {
    const steps: SweepMeasure[] = [];
    for (const mode of plan.sweep.modes) {
      for (const connections of plan.sweep.connections) steps.push(await sweepStep(started.url, data, connections, mode, plan.sweep.seconds, next));
    }
    reportSweep(steps);
  });
  await apart('the burst', async () => {
    const seeding = performance.now();
    await seedBurstOwners(started.url, data.users.length, plan.burst.owners);
    const seededMs = Math.round(performance.now() - seeding);
    const alone = await probeBurstSearch(started.url);
    reportBurst(await burst(started.url, plan.burst.searches), alone, seededMs);
  });
  const mark = logMark(started);
  const outcome = await outage(started.url, engine, data, plan.outage, next, () => started.process.exitCode === null);
  reportOutage(outcome, loggedErrors(started, mark));
  reportShutdown(await shutdown(started, plan.inFlight));
} catch (error) {
  failures.push(`the run broke: ${error instanceof Error ? error.stack : String(error)}`);
} finally {
  if (app) killSampleApp(app);
  await engine.stop();
}
line('');
if (failures.length) {
  line(`FAILED (${failures.length})${reportOnly ? ' (--report-only: the exit code stays 0)' : ''}:`);
  for (const failure of failures) line(`  - ${failure}`);
  if (!reportOnly) process.exitCode = 1;
} else {
  line('all checks passed');
}

function header(): void {
  line(`Soak of the sample app on ${adapter === 'fastify' ? 'Fastify' : 'Express'}${quick ? ' (--quick)' : ''}; seed ${randomSeed}`);
  line(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`);
  line(
    `Load: ${plan.connections} connections, ${plan.seconds} s after ${plan.warmupSeconds} s of warm-up; mix per connection: 6 reads, 3 searches, 3 writes ` +
      `(create, modify, delete of its own company)`,
  );
  const modes = plan.sweep.modes.map((mode) => mode.replace(/ Retry-After$/, '')).join(' / ');
  line(
    `Then: a sweep of ${plan.sweep.connections.join(', ')} connections, ${plan.sweep.seconds} s each, clients that ${modes} Retry-After; ` +
      `a burst of ${plan.burst.searches} slow searches${reportOnly ? '; --report-only: a failed check does not fail the run' : ''}`,
  );
}

function reportSoak(t: TrafficResult, rssWarm: number, rssLoaded: number, rssSettled: number): void {
  line('');
  line('== soak');
  line(
    `goodput ${t.goodput.toFixed(1)} 2xx/s of ${t.rps.toFixed(1)} req/s; 503 share ${percent(t.shed, t.requests)} (connections ${plan.connections}, ` +
      `autocannon: Retry-After ignored)`,
  );
  line(
    `requests ${t.requests} (${Math.round(t.rps)} req/s); status codes ${JSON.stringify(t.statusCodes)}; socket errors ${t.errors}, timeouts ` +
      `${t.timeouts}, non-2xx ${t.non2xx} (503 MR_OVERLOADED apart)`,
  );
  line(`shed by the admission limit (503 MR_OVERLOADED, Retry-After): ${t.shed} (${percent(t.shed, t.requests)})`);
  line(
    `latency of all answers p50 ${t.p50} ms, p99 ${t.p99} ms, max ${t.max} ms; of the ${t.admitted.count} admitted: p50 ${t.admitted.p50} ms, p99 ` +
      `${t.admitted.p99} ms, max ${t.admitted.max} ms`,
  );
  for (const [kind, counts] of Object.entries(t.byKind)) line(`  ${kind.padEnd(16)} ${JSON.stringify(counts)}`);
  for (const sample of t.samples) line(`  non-2xx: ${sample}`);
  line(`app RSS: ${rssWarm} MiB after warm-up, ${rssLoaded} MiB after the load, ${rssSettled} MiB after ${plan.settleSeconds} s idle`);
  const fivexx = Object.entries(t.statusCodes)
    .filter(([code]) => code.startsWith('5'))
    .reduce((sum, [, count]) => sum + count, 0);
  check(t.requests > 0, 'the soak completed requests', `${t.requests}`);
  const otherFivexx = fivexx - t.shed;
  check(
    t.non2xx === 0,
    'no answer other than 2xx or a shed 503 MR_OVERLOADED (every request of the mix is meant to succeed or be shed)',
    `${t.non2xx} non-2xx, of which ${otherFivexx} 5xx`,
  );
  // A latency bound holds for the full run on a quiet machine; --quick (CI, on a machine shared with nothing it controls) reports it.
  if (quick) line(`  [report] p99 of the admitted requests (bound ${BOUNDS.admittedP99Ms} ms in the full run): ${t.admitted.p99} ms`);
  else check(t.admitted.p99 < BOUNDS.admittedP99Ms, `p99 of the admitted requests below ${BOUNDS.admittedP99Ms} ms`, `${t.admitted.p99} ms`);
  check(t.errors === 0 && t.timeouts === 0, 'no socket error or timeout (10 s)', `${t.errors} errors, ${t.timeouts} timeouts`);
  const growth = Math.max(rssLoaded, rssSettled) - rssWarm;
  check(growth < BOUNDS.rssGrowthMiB, `RSS growth from after warm-up below ${BOUNDS.rssGrowthMiB} MiB`, `${growth} MiB`);
}

function reportSweep(steps: SweepMeasure[]): void {
  line('');
  line(
    `== concurrency sweep: the same mix, ${plan.sweep.seconds} s per step, closed-loop clients on keep-alive connections (node:http); ` +
      `a shed request is sent again, after its Retry-After or at once; seed ${randomSeed}`,
  );
  const rows = steps.map(sweepRow);
  for (const text of sweepTable(rows)) line(text);
  for (const step of steps) {
    for (const sample of step.samples) line(`  ${step.connections} connections, ${step.mode}: ${sample}`);
    if (step.shedWithoutRetryAfter) line(`  ${step.connections} connections, ${step.mode}: ${step.shedWithoutRetryAfter} shed answers without Retry-After`);
  }
  const honoured = goodputRatio(rows, 'honours Retry-After', BOUNDS.goodputRatio);
  const ignored = goodputRatio(rows, 'ignores Retry-After', BOUNDS.goodputRatio);
  if (ignored) {
    line(
      `  [report] clients ignoring Retry-After: goodput at ${ignored.largest.connections} connections ${ignored.largest.goodput.toFixed(1)}/s, ` +
        `${ignored.ratio.toFixed(2)} × the best (${ignored.best.goodput.toFixed(1)}/s at ${ignored.best.connections})`,
    );
  }
  if (honoured) {
    check(
      honoured.ok,
      `clients honouring Retry-After: goodput at ${honoured.largest.connections} connections at least ${BOUNDS.goodputRatio} × the sweep's best`,
      `${honoured.largest.goodput.toFixed(1)}/s, ${honoured.ratio.toFixed(2)} × ${honoured.best.goodput.toFixed(1)}/s (at ${honoured.best.connections})`,
    );
  }
  const fivexx = rows.filter((row: SweepRow) => row.otherFivexx > 0);
  check(
    fivexx.length === 0,
    'no 5xx other than the shed 503 MR_OVERLOADED at any step',
    fivexx.length ? fivexx.map((row) => `${row.otherFivexx} at ${row.connections} (${row.mode})`).join(', ') : '0 at every step',
  );
}

function reportBurst(b: Awaited<ReturnType<typeof burst>>, alone: Awaited<ReturnType<typeof probeBurstSearch>>, seededMs: number): void {
  const t = burstTally(b.answers);
  line('');
  line(`== burst: ${plan.burst.searches} slow searches at once (GET ${BURST_SEARCH.path}, Prefer: ${BURST_SEARCH.headers.prefer})`);
  line(
    `the condition across owner matches ${plan.burst.owners} users (${plan.burst.owners - plan.users} added in ${seededMs} ms); ` +
      `one search alone before the burst: ${alone.ms} ms, match_count ${String(alone.matches)} (${String(alone.counted)})`,
  );
  line(
    `answered 200: ${t.ok}; shed 503 MR_OVERLOADED: ${t.shed}; 422 MR_QUERY_TIMEOUT: ${t.queryTimeout}; 5xx other than 503: ${t.otherFivexx}; ` +
      `other: ${t.other}; the last answer after ${b.ms} ms`,
  );
  line(
    `latency of the 200s: p99 ${t.okP99} ms, max ${t.okMax} ms; of every admitted search (all but the shed): p99 ${t.admittedP99} ms, max ${t.admittedMax} ms`,
  );
  for (const [answer, count] of Object.entries(t.others)) line(`  admitted, not 200: ${answer} × ${count}`);
  for (const sample of b.samples) line(`  e.g. ${sample}`);
  check(t.ok > 0, 'the burst got searches answered', `${t.ok} answered 200`);
  check(t.queryTimeout === 0, 'no admitted search ends in 422 MR_QUERY_TIMEOUT', `${t.queryTimeout} of ${t.sent - t.shed} admitted`);
  check(t.admittedP99 < BOUNDS.burstAdmittedP99Ms, `p99 of the admitted searches below ${BOUNDS.burstAdmittedP99Ms} ms`, `${t.admittedP99} ms`);
  check(t.otherFivexx === 0, 'no 5xx other than the shed 503 MR_OVERLOADED', `${t.otherFivexx}`);
}

function reportOutage(o: OutageResult, errors: string[]): void {
  line('');
  line(
    `== fault: database ${plan.outage.crash ? 'killed (SIGKILL)' : 'stopped (SIGTERM, drained)'} under load (${plan.outage.workers} clients, ` +
      `${plan.outage.downSeconds} s down, serverSelectionTimeoutMS ${plan.selectionTimeoutMs})`,
  );
  line(`requests ${o.requests}; answers ${JSON.stringify(o.answers)}`);
  line(
    `suspend() took ${o.suspendMs} ms; first 503 MR_DATABASE_UNAVAILABLE ${o.firstUnavailableMs ?? '-'} ms after suspend() was called; ${o.sentWhileDown} ` +
      `requests sent while down: p99 ${o.downP99Ms} ms, max ${o.downMaxMs} ms`,
  );
  line(`after the resume: first 2xx in ${o.firstSuccessMs ?? '-'} ms, 20 in a row in ${o.twentySuccessesMs ?? '-'} ms; app process alive: ${o.appAlive}`);
  for (const item of o.cancelledByEngine) line(`  in flight as the engine stopped: ${item}`);
  for (const item of o.unexpected) line(`  unexpected: ${item}`);
  // FerretDB, stopped, answers the queries it is running "context canceled"; each 503 is logged with
  // its cause (the library logs every 5xx); any other error the app logged is a failure.
  const cancels = errors.filter((entry) => /context canceled/.test(entry));
  const unavailable = errors.filter((entry) => /answered 503 MR_DATABASE_UNAVAILABLE: /.test(entry));
  const others = errors.filter((entry) => !/context canceled/.test(entry) && !unavailable.includes(entry));
  for (const entry of others) line(`  logged by the app: ${entry.slice(0, 300)}`);
  const internal = o.cancelledByEngine.filter((item) => item.startsWith('500')).length;
  check(
    o.unexpectedCount === 0,
    "every request sent while the engine was down or after it answered 2xx, 503 MR_DATABASE_UNAVAILABLE or the limit's 503 MR_OVERLOADED, no socket error",
    `${o.unexpectedCount} others (${o.answers['503 MR_OVERLOADED'] ?? 0} shed by the admission limit)`,
  );
  check(
    others.length === 0 && internal <= cancels.length,
    'requests in flight as the engine stopped: every 500 is FerretDB\'s own "context canceled" answer, and the app logged no other error',
    `${o.cancelledByEngine.length} such answers (${internal} 500s), ${cancels.length} "context canceled" and ${others.length} other errors logged`,
  );
  check(
    o.firstUnavailableMs !== undefined,
    'clients were told the database is unavailable',
    `${o.answers['503 MR_DATABASE_UNAVAILABLE'] ?? 0} answers 503 MR_DATABASE_UNAVAILABLE`,
  );
  check(
    unavailable.length > 0,
    "the app logged why it answered 503 (the request and the driver's error)",
    `${unavailable.length} logged: ${unavailable[0]?.slice(0, 160) ?? 'none'}`,
  );
  check(
    o.sentWhileDown > 0 && o.downMaxMs <= BOUNDS.unavailableWithinMs,
    `every request sent while down answered within ${BOUNDS.unavailableWithinMs} ms (serverSelectionTimeoutMS + 5 s)`,
    `max ${o.downMaxMs} ms over ${o.sentWhileDown}`,
  );
  check(o.appAlive, 'the app process survived the outage', String(o.appAlive));
  check(
    o.twentySuccessesMs !== undefined && o.twentySuccessesMs <= BOUNDS.recoveredWithinMs,
    `20 successes in a row within ${BOUNDS.recoveredWithinMs} ms of the resume, without restarting the app`,
    `${o.twentySuccessesMs ?? 'never'} ms`,
  );
}

function reportShutdown(s: ShutdownResult): void {
  line('');
  line(`== fault: SIGTERM with ${s.inFlight} slow searches in flight and one idle keep-alive connection`);
  line(
    `in flight: ${s.completed} completed, ${s.failed.length} failed, ${s.shed} shed at once by the admission limit (503 MR_OVERLOADED); last answer ` +
      `${s.lastAnsweredMs} ms after SIGTERM`,
  );
  line(`idle keep-alive connection closed by the server ${s.idleClosedMs ?? 'never'} ms after SIGTERM`);
  line(
    `new connections: ${JSON.stringify(s.probes)}; first refused ${s.firstRefusedMs ?? '-'} ms after SIGTERM; answered after a refusal: ` +
      `${s.answeredAfterRefused}`,
  );
  line(`exit: code ${s.exitCode}, signal ${s.exitSignal}, ${s.shutdownMs} ms after SIGTERM`);
  for (const item of s.failed.slice(0, 10)) line(`  failed: ${item}`);
  check(
    s.failed.length === 0,
    'every request in flight at SIGTERM got a complete 2xx answer (those shed at once were never in flight)',
    `${s.completed}/${s.inFlight - s.shed}`,
  );
  check(
    s.answeredAfterRefused === 0 && (s.probes.ECONNREFUSED ?? 0) > 0,
    'new connections are refused once the server stops listening',
    `${s.probes.ECONNREFUSED ?? 0} refused, ${s.answeredAfterRefused} answered after a refusal`,
  );
  check(s.exitCode === 0, 'the process exits with code 0', `code ${s.exitCode}, signal ${s.exitSignal}`);
  check(s.shutdownMs <= BOUNDS.shutdownWithinMs, `it exits within ${BOUNDS.shutdownWithinMs} ms of SIGTERM`, `${s.shutdownMs} ms`);
}

/** Runs one phase apart: if it breaks, the failure is recorded and the run goes on. Prints how long it took (CI's budget). */
async function apart(what: string, run: () => Promise<void>): Promise<void> {
  const start = performance.now();
  try {
    await run();
    line(`  (${what} took ${((performance.now() - start) / 1000).toFixed(1)} s)`);
  } catch (error) {
    line(`  [FAIL] ${what} broke: ${error instanceof Error ? error.message : String(error)}`);
    failures.push(`${what} broke: ${error instanceof Error ? error.stack : String(error)}`);
  }
}

function percent(part: number, whole: number): string {
  return whole ? `${((100 * part) / whole).toFixed(1)}%` : '-';
}

function check(ok: boolean, what: string, measured: string): void {
  line(`  [${ok ? 'ok' : 'FAIL'}] ${what}: ${measured}`);
  if (!ok) failures.push(`${what}: ${measured}`);
}

function option(name: string): string | undefined {
  const index = argv.indexOf(`--${name}`);
  return index < 0 ? undefined : argv[index + 1];
}

function number(name: string): number | undefined {
  const text = option(name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} needs a whole number, at least 1`);
  return value;
}

function line(text: string): void {
  process.stdout.write(`${text}\n`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
