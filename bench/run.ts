import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEngine } from '../scripts/mongo-engine.js';
import { lineChartSvg, type ChartSeries } from './chart.js';
import { countCommands, freePort, measure, pick, run, startServer, stopServer } from './harness.js';
import {
  PAGED_READS,
  PAGED_SORTS,
  PAGE_LIMIT,
  cursorRequest,
  deepPage,
  depthRatios,
  pagedSeries,
  pagedTable,
  skipRequest,
  type PagedMeasure,
  type PagedSort,
} from './paged-list.js';
import {
  SCALE_SCENARIOS,
  SCENARIOS,
  SERVERS,
  backendName,
  onlyArguments,
  countArgument,
  scenariosFor,
  selectScenarios,
  serverApp,
  sizesArgument,
  stringArgument,
  type BenchRequest,
  type Ids,
  type Scenario,
  type ServerName,
} from './scenarios.js';
import { rotated, type Measure } from './measure.js';
import { commandsTable, expressTable, fastifyTable, targetsTable, type CommandCounts, type Results } from './table.js';
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
 * the scale measures; `--rounds <n>` takes n rounds instead of 3, `--seconds <n>` measures each
 * scenario n seconds instead of 10 (after n/3 of warm-up); `--one-at-a-time <n>` sends each scenario n
 * requests on one connection instead (after 3 of warm-up).
 * `--interleave` measures the servers of each scenario in turn within seconds of each other (see
 * `interleave`), the rounds being slices.
 * `--scale-only` runs the scale measures alone (boot time, then latency one request at a time as the
 * collection grows, and the paged list at page 1 and deep, with `skip` and with the cursor);
 * `--sizes 1000,10000` measures those sizes instead of the backend's (`SIZES`); the scale part writes
 * its charts as SVG into `docs/bench/` (`--charts <dir>` elsewhere; `--quick` into `dist-bench/charts/`).
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
  ? { users: 50, companies: 500, rounds: 1, warmup: { connections: 8, amount: 0 }, load: { connections: 8, amount: 24 } }
  : { users: 500, companies: 5000, rounds: 3, warmup: { connections: 8, duration: 3 }, load: { connections: 8, duration: 10 } };
plan.rounds = countArgument(process.argv, 'rounds') ?? plan.rounds;
const seconds = countArgument(process.argv, 'seconds');
// A third of the measured time to warm up, as the plan's 3 s for 10 s.
if (seconds && !quick) Object.assign(plan, { warmup: { connections: 8, duration: Math.ceil(seconds / 3) }, load: { connections: 8, duration: seconds } });
// --one-at-a-time <n>: n requests on one connection after 3 of warm-up, so requests/s is 1 / latency: the
// measure for a scenario whose requests take the engine seconds (8 connections then complete a few per
// round, and one request more or less moves a ratio by a tenth or more).
const oneAtATime = countArgument(process.argv, 'one-at-a-time');
if (oneAtATime && !quick) Object.assign(plan, { warmup: { connections: 1, amount: 3 }, load: { connections: 1, amount: oneAtATime } });
/**
 * `--interleave`: for each scenario, every server that serves it is started at once, then the
 * rounds are slices: each server measured in turn for the scenario's time (the order rotating from
 * one slice to the next), one after the other within seconds rather than minutes apart. Measured on
 * 2026-11-26: the engine's speed drifts by up to a factor of 2 over minutes on this machine kind
 * (the same server's modify at 357, 662 and 577 requests/s in three rounds), so that servers measured
 * minutes apart compare the engine's moods as much as the servers.
 */
const interleave = process.argv.includes('--interleave');
/** One request at a time: a sorted page of the collection takes seconds at 100,000 on FerretDB (it sorts in Go), so fewer than the other scale measures. */
const PAGED_LOAD = { connections: 1, amount: quick ? 3 : 5 };
const PAGED_WARMUP = { connections: 1, amount: 1 };

// 100 per location: the serialization scenario's page is full.
const VENTURES = 500;

const engine = await startEngine();
// FerretDB's SQLite backend filters in Go after reading every document (only _id lookups are
// pushed down), so a search over 100k documents takes seconds there; PostgreSQL (and MongoDB) use
// the index on `owner`, and are measured up to 100k.
const SIZES = quick ? [500] : (sizesArgument(process.argv) ?? (/SQLite/.test(engine.description) ? [1000, 5000, 20000] : [1000, 10000, 100000]));
const root = join(here, '..', '..');
// --quick checks the wiring of the charts without touching the committed ones.
const chartDir = resolve(root, stringArgument(process.argv, 'charts') ?? (quick ? 'dist-bench/charts' : 'docs/bench'));
const dbName = `bench_${Date.now().toString(36)}`;
try {
  const data = await seed(engine.uri, dbName, scaleOnly ? 10 : plan.users, scaleOnly ? 10 : plan.companies, VENTURES);
  const ids = pick(data);
  const results: Results = new Map();
  // --quick measures nothing, so its first round's Express servers count the commands themselves (no extra processes in CI).
  const commands: CommandCounts = scaleOnly || quick ? new Map() : await countAllCommands(ids);
  if (interleave && !scaleOnly) await measureInterleaved(ids, results);
  for (let round = 1; round <= (scaleOnly || interleave ? 0 : plan.rounds); round++) {
    for (const server of SERVERS) {
      // One process per app setup: the scenarios that need a global ValidationPipe get their own.
      for (const setup of setups(scenarios)) {
        const served = scenariosFor(server, scenarios, quick).filter((scenario) => scenario.setup === setup);
        if (served.length === 0) continue;
        await reset(engine.uri, dbName);
        const counting = quick && round === 1 && setup === undefined && serverApp(server).adapter === 'express';
        const commandsPort = counting ? await freePort() : 0;
        const child = await startServer(server, engine.uri, dbName, setup, counting ? { BENCH_COMMANDS_PORT: String(commandsPort) } : {});
        try {
          if (counting) await countServerCommands(server, child.port, commandsPort, served, ids, commands);
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
  if (!scaleOnly) print(results, commands);
  if (only.length === 0) await scale(engine.uri);
} finally {
  await engine.stop();
}

/** Boot time and memory with 10, 100 and 500 resources; search and reverse latency as the data grows. */
async function scale(uri: string): Promise<void> {
  const lines = [
    '',
    `Scale: ${machineLine()}; load average ${loadLine()} at the start`,
    '',
    '| resources | boot (forRoot to init) | RSS after boot | heap used |',
    '|---|---|---|---|',
  ];
  for (const count of quick ? [10] : [10, 100, 500]) {
    const { stdout } = await run(process.execPath, [join(here, 'boot.js'), String(count)], { BENCH_URI: uri, BENCH_DB: `boot_${count}` });
    const result = JSON.parse(stdout.trim().split('\n').pop()!) as { bootMs: number; rssMb: number; heapMb: number };
    lines.push(`| ${count} | ${result.bootMs} ms | ${result.rssMb} MiB | ${result.heapMb} MiB |`);
  }
  lines.push('', '| companies | scenario (one request at a time) | generated | hand-written | hand-written p50 / generated p50 |', '|---|---|---|---|---|');
  /** The generated routes' p50 per scenario, size by size: how latency grows with the data. */
  const growth = new Map<string, number[]>();
  /** Per scenario and server, the p50 at each size: the chart of the table. */
  const points = new Map<string, Record<'generated' | 'handwritten', Array<{ x: number; y: number }>>>();
  const paged: PagedMeasure[] = [];
  for (const size of SIZES) {
    const db = `bench_size_${size}`;
    const data = await seed(uri, db, Math.max(10, size / 10), size);
    // Both servers up for the whole size, measured in turn scenario by scenario (no scale scenario writes).
    const children = await startBoth(uri, db);
    try {
      for (const scenario of [
        ...SCENARIOS.filter((candidate) => candidate.name.startsWith('search (POST') || candidate.name === 'reverse reference (GET)'),
        ...SCALE_SCENARIOS,
      ]) {
        const row: Partial<Record<ServerName, Measure>> = {};
        for (const server of ['generated', 'handwritten'] as const) {
          const ids = pick(data);
          const oneAtATime = { connections: 1, amount: quick ? 3 : 10 };
          row[server] = await measure(
            children[server].port,
            () => scenario.request[server]!(ids),
            oneAtATime,
            { connections: 1, amount: 3 },
            `${server} ${scenario.name} on ${size}`,
          );
        }
        const show = (m: Measure) => `p50 ${m.p50} ms, p99 ${m.p99} ms`;
        lines.push(
          `| ${size} | ${scenario.name} | ${show(row.generated!)} | ${show(row.handwritten!)} | ${(row.handwritten!.p50 / row.generated!.p50).toFixed(2)} |`,
        );
        growth.set(scenario.name, [...(growth.get(scenario.name) ?? []), row.generated!.p50]);
        const series = points.get(scenario.name) ?? { generated: [], handwritten: [] };
        for (const server of ['generated', 'handwritten'] as const) series[server].push({ x: size, y: row[server]!.p50 });
        points.set(scenario.name, series);
      }
      paged.push(...(await pagedList(children, size)));
    } finally {
      await Promise.all(Object.values(children).map((child) => stopServer(child.process)));
    }
  }
  lines.push('');
  for (const [name, p50s] of growth) {
    lines.push(`Generated ${name}: p50 at ${SIZES.at(-1)} companies / p50 at ${SIZES[0]} = ${(p50s.at(-1)! / Math.max(p50s[0]!, 1)).toFixed(2)}`);
  }
  lines.push(
    '',
    `Paged list (one request at a time, ${PAGED_LOAD.amount} after ${PAGED_WARMUP.amount} of warm-up; \`Prefer: count=none\` on every request, both ` +
      `servers; the cursor is the \`status.next\` of the page before, taken outside the measure):`,
    '',
    ...pagedTable(paged),
    '',
    ...depthRatios(paged),
  );
  const backend = backendName(engine.description);
  const engineName = engine.description.split(' at ')[0]!.replace(/\s*\(.*$/, '');
  const day = new Date().toISOString().slice(0, 10);
  const scaleSeries: ChartSeries[] = [...points].flatMap(([name, series]) => [
    { label: `${name} (generated)`, kind: name, dashed: false, points: series.generated },
    { label: `${name} (hand-written)`, kind: name, dashed: true, points: series.handwritten },
  ]);
  lines.push('', `Load average ${loadLine()} at the end.`, '', 'Charts:');
  lines.push(
    writeChart(`scale-${backend}.svg`, {
      title: `p50 as the collection grows, one request at a time: ${engineName} (${backend}), ${day}`,
      xLabel: 'companies',
      yLabel: 'p50 (ms)',
      series: scaleSeries,
    }),
  );
  lines.push(
    writeChart(`paged-list-${backend}.svg`, {
      title: `Paged list, 20 per page, no count: ${engineName} (${backend}), ${day}`,
      xLabel: 'companies',
      yLabel: 'p50 (ms)',
      series: pagedSeries(paged),
    }),
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The generated and hand-written servers of one size of the scale measures. */
type ScaleServers = Record<'generated' | 'handwritten', Awaited<ReturnType<typeof startServer>>>;

/** Starts the generated and the hand-written servers on `db`; if the second fails to start, stops the first. */
async function startBoth(uri: string, db: string): Promise<ScaleServers> {
  const generated = await startServer('generated', uri, db);
  try {
    return { generated, handwritten: await startServer('handwritten', uri, db) };
  } catch (error) {
    await stopServer(generated.process);
    throw error;
  }
}

/**
 * The paged list at one size, on the size's two servers: per sort, page 1, the deep page with
 * `skip`, and the deep page with the cursor that the page before it answered (one request outside
 * the measure, as a client at that page has it). The two deep pages must hold the same documents:
 * a cursor that led elsewhere would measure another request.
 */
async function pagedList(children: ScaleServers, size: number): Promise<PagedMeasure[]> {
  const { skip } = deepPage(size);
  // --quick checks the wiring: one sort is enough there.
  const sorts = quick ? PAGED_SORTS.slice(0, 1) : PAGED_SORTS;
  const p50 = new Map<string, number>();
  for (const server of ['generated', 'handwritten'] as const) {
    const child = children[server];
    for (const sort of sorts) {
      const before = await page(child.port, skipRequest(sort, skip - PAGE_LIMIT), `${server} sort=${sort} skip=${skip - PAGE_LIMIT} on ${size}`);
      if (typeof before.status.next !== 'string')
        throw new Error(`benchmark ${server} sort=${sort} on ${size}: the page before the deep page has no status.next`);
      const deep = cursorRequest(sort, before.status.next);
      await samePage(child.port, sort, skip, deep, `${server} sort=${sort} on ${size}`);
      const reads: Array<[PagedMeasure['read'], BenchRequest]> = [
        ['page 1', skipRequest(sort, 0)],
        ['deep, skip', skipRequest(sort, skip)],
        ['deep, cursor', deep],
      ];
      for (const [read, request] of reads) {
        const measured = await measure(child.port, () => request, PAGED_LOAD, PAGED_WARMUP, `${server} sort=${sort} ${read} on ${size}`);
        p50.set(`${server} ${sort} ${read}`, measured.p50);
        process.stderr.write(`paged ${size} ${server.padEnd(11)} sort=${sort} ${read.padEnd(12)} p50 ${measured.p50} ms\n`);
      }
    }
  }
  return sorts.flatMap((sort) =>
    PAGED_READS.map((read) => ({ size, sort, read, generated: p50.get(`generated ${sort} ${read}`)!, handwritten: p50.get(`handwritten ${sort} ${read}`)! })),
  );
}

/** One page, outside the measure; a non-2xx answer is an error, as in a measure. */
async function page(port: number, call: BenchRequest, what: string): Promise<{ status: { next?: unknown }; result: Array<{ _id: string }> }> {
  const response = await fetch(`http://127.0.0.1:${port}${call.path}`, { headers: call.headers });
  if (!response.ok) throw new Error(`benchmark ${what}: answered ${response.status} ${await response.text()}`);
  return (await response.json()) as { status: { next?: unknown }; result: Array<{ _id: string }> };
}

/** The deep page read with `skip` and with the cursor: the same 20 documents, or the run stops. */
async function samePage(port: number, sort: PagedSort, skip: number, deep: BenchRequest, what: string): Promise<void> {
  const ids = async (call: BenchRequest) => (await page(port, call, what)).result.map((doc) => String(doc._id));
  const [bySkip, byCursor] = [await ids(skipRequest(sort, skip)), await ids(deep)];
  if (bySkip.length !== PAGE_LIMIT || bySkip.join() !== byCursor.join()) {
    throw new Error(`benchmark ${what}: the deep page with skip (${bySkip.length} documents) and with the cursor (${byCursor.length}) differ`);
  }
}

/** Writes a chart into the charts folder; its line for the output. */
function writeChart(name: string, chart: Parameters<typeof lineChartSvg>[0]): string {
  mkdirSync(chartDir, { recursive: true });
  const path = join(chartDir, name);
  writeFileSync(path, lineChartSvg(chart));
  return `- ${relative(root, path)}`;
}

/**
 * The database commands of one request of each scenario that runs on the plain apps, per app on
 * Express: each server in its own process with the driver's command monitoring on
 * (`BENCH_COMMANDS_PORT`), one request of warm-up, then one request counted. Outside the timed
 * rounds, whose servers run without monitoring.
 */
async function countAllCommands(ids: Ids): Promise<CommandCounts> {
  const counts: CommandCounts = new Map();
  for (const server of SERVERS.filter((name) => serverApp(name).adapter === 'express')) {
    await reset(engine.uri, dbName);
    const commandsPort = await freePort();
    const child = await startServer(server, engine.uri, dbName, undefined, { BENCH_COMMANDS_PORT: String(commandsPort) });
    try {
      await countServerCommands(
        server,
        child.port,
        commandsPort,
        scenariosFor(server, scenarios, quick).filter((candidate) => !candidate.setup),
        ids,
        counts,
      );
    } finally {
      await stopServer(child.process);
    }
  }
  return counts;
}

/** `--interleave`: each scenario's servers all up, measured in turn slice after slice (see `interleave`). */
async function measureInterleaved(ids: Ids, results: Results): Promise<void> {
  for (const scenario of scenarios) {
    const servers = SERVERS.filter((server) => scenariosFor(server, [scenario], quick).length > 0);
    await reset(engine.uri, dbName);
    const children = new Map<ServerName, Awaited<ReturnType<typeof startServer>>>();
    try {
      for (const server of servers) children.set(server, await startServer(server, engine.uri, dbName, scenario.setup));
      const row = results.get(scenario.name) ?? {};
      results.set(scenario.name, row);
      for (let slice = 0; slice < plan.rounds; slice++) {
        for (const server of rotated(servers, slice)) {
          const build = scenario.request[serverApp(server).app]!;
          // Each server's first slice is preceded by its warm-up; the others follow straight on.
          const warmup = slice === 0 ? plan.warmup : { connections: 1, amount: 0 };
          const measured = await measure(children.get(server)!.port, () => build(ids), plan.load, warmup, `${server} ${scenario.name}`);
          (row[server] ??= []).push(measured);
          process.stderr.write(`slice ${slice + 1} ${server.padEnd(19)} ${scenario.name.padEnd(32)} ${Math.round(measured.rps)} req/s\n`);
        }
      }
    } finally {
      for (const child of children.values()) await stopServer(child.process);
    }
  }
}

/** One request of warm-up, then one counted, of each scenario on a server started with `BENCH_COMMANDS_PORT=<commandsPort>`; added to `counts`. */
async function countServerCommands(server: ServerName, port: number, commandsPort: number, served: Scenario[], ids: Ids, counts: CommandCounts): Promise<void> {
  const { app } = serverApp(server);
  for (const scenario of served) {
    const build = scenario.request[app]!;
    const what = `${server} ${scenario.name}`;
    await countCommands(port, commandsPort, build(ids), what);
    const names = await countCommands(port, commandsPort, build(ids), what);
    counts.set(scenario.name, { ...counts.get(scenario.name), [app]: names });
    process.stderr.write(`commands ${server.padEnd(19)} ${scenario.name.padEnd(32)} ${names.join(', ')}\n`);
  }
}

/** The app setups the scenarios need, in the order they first appear (`undefined`: the plain apps). */
function setups(list: Scenario[]): Array<Scenario['setup']> {
  return [...new Set(list.map((scenario) => scenario.setup))];
}

/** The machine, Node and the engine, as the tables' first line gives them. */
function machineLine(): string {
  return (
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; Node ${process.version}; engine: ` +
    `${engine.description.split(' at ')[0]}`
  );
}

/** The 1, 5 and 15 minute load averages: on a shared machine, how busy it was. */
function loadLine(): string {
  return loadavg()
    .map((load) => load.toFixed(1))
    .join(', ');
}

function print(results: Results, commands: CommandCounts): void {
  const lines = [
    machineLine(),
    `Data: ${plan.users} entrepreneurs, ${plan.companies} companies, ${VENTURES} ventures; ${plan.load.connections} connections; per scenario ` +
      `${'amount' in plan.load ? `${plan.load.amount} requests after ${plan.warmup.amount}` : `${plan.load.duration} s after ${plan.warmup.duration} s`} ` +
      `of warm-up; ` +
      (interleave
        ? `${plan.rounds} interleaved slices (--interleave: every server of a scenario up at once, measured in turn, the order rotating; ` +
          'median, with the range of the slices)'
        : `${plan.rounds} rounds (servers alternating; median, with the range of the rounds)`) +
      (quick ? " (--quick: a check that the harness works; autocannon's clock ticks in whole seconds, so these requests/s say nothing)" : ''),
    '',
    'Express:',
    '',
    ...expressTable(scenarios, results),
    '',
    `Fastify (the two Nest apps on @nestjs/platform-fastify${quick ? '; --quick runs a few scenarios there' : ''}):`,
    '',
    ...fastifyTable(scenarios, results),
    '',
    ...(interleave
      ? [
          "Targets (issue 40), judged on the slices' own ratios (generated / the other server of the same slice): their median, and the " +
            "interval that holds the true median with the coverage given (the sign test's; `cannot tell` when it holds the target):",
          '',
          ...targetsTable(scenarios, results),
          '',
        ]
      : []),
    `Database commands per request (one request after one of warm-up, counted by the driver's command monitoring in the server, ` +
      `${quick ? "--quick: in the first round's servers" : 'each server alone, outside the timed rounds'}; on Express, Fastify sends the same):`,
    '',
    ...commandsTable(scenarios, commands),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
