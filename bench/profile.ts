import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEngine } from '../scripts/mongo-engine.js';
import { measure, pick, startProfiling, startServer, stopServer } from './harness.js';
import { ownerOf, profileShares, promiseHookMicros, topFrames, type CpuProfile } from './profile-shares.js';
import { SCENARIOS, onlyArguments, selectScenarios, serverApp, type ServerName } from './scenarios.js';
import { reset, seed } from './seed.js';

/**
 * `npm run bench:profile [-- --quick]`: where the generated routes' CPU goes under load. For each
 * profiled scenario and platform, a server of its own is warmed up, then sampled (the V8 profiler,
 * through `node:inspector`, started after the warm-up so start-up is not counted) while autocannon
 * sends it the scenario's requests; the samples are then attributed to the library (its compiled
 * `src/`), to each npm package, to Node, to the garbage collector, or to idle time.
 *
 * Printed per profile: the server's CPU time per request, the library's share of the busy samples
 * (the process's own CPU time; the target is under 5% on get one and search), the time in Node's
 * promise hooks (on while an `AsyncLocalStorage` is in use, on Node 20 and 22), the largest owners
 * and the functions with the most self time. The hand-written controller is profiled the same way,
 * for comparison.
 */
const quick = process.argv.includes('--quick');
/** `--keep`: leave the `.cpuprofile` files (for Chrome DevTools or `--cpu-prof` tooling) and print where. */
const keep = process.argv.includes('--keep');
const only = onlyArguments(process.argv);
/** The scenarios profiled: `--only <text>` (repeatable) as for `npm run bench`, else the target's. */
const PROFILED = only.length
  ? selectScenarios(SCENARIOS, only).map((scenario) => scenario.name)
  : ['get one', 'search (POST, filter, limit 20)', 'search (GET, query string)', 'create'];
// The hand-written controller for comparison: the CPU a request costs without the library.
const SERVERS: ServerName[] = ['generated', 'handwritten', 'generated-fastify', 'handwritten-fastify'];
const plan = quick
  ? { users: 200, companies: 2000, warmup: { connections: 8, amount: 20 }, load: { connections: 8, amount: 100 } }
  : { users: 500, companies: 5000, warmup: { connections: 8, duration: 3 }, load: { connections: 8, duration: 10 } };
const here = dirname(fileURLToPath(import.meta.url));
/** Where the library's compiled code lies in this benchmark build (`dist-bench/src/`). */
const LIBRARY_SOURCE = join(dirname(here), 'src') + '/';

const engine = await startEngine();
const dbName = `profile_${Date.now().toString(36)}`;
const dir = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'model-routes-profile-'));
try {
  const ids = pick(await seed(engine.uri, dbName, plan.users, plan.companies, 500));
  const lines = [
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`,
    `Data: ${plan.users} entrepreneurs, ${plan.companies} companies; ${plan.load.connections} connections; sampled ` +
      `${'amount' in plan.load ? `${plan.load.amount} requests` : `${plan.load.duration} s`} after the warm-up`,
    '',
    '| server | scenario | req/s | CPU per request | library | promise hooks | largest owners (share of busy samples) | top frames (self time per request) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const libraryLines: string[] = [];
  for (const server of SERVERS) {
    const app = serverApp(server).app as 'generated' | 'handwritten';
    for (const scenario of SCENARIOS.filter((candidate) => PROFILED.includes(candidate.name))) {
      await reset(engine.uri, dbName);
      const file = join(dir, `${server}-${scenario.name.replace(/\W+/g, '-')}.cpuprofile`);
      const child = await startServer(server, engine.uri, dbName, scenario.setup, { BENCH_PROFILE: file });
      let rps: number;
      let requests: number;
      try {
        const build = scenario.request[app]!;
        const what = `${server} ${scenario.name} (profiled)`;
        ({ rps, requests } = await measure(
          child.port,
          () => build(ids),
          plan.load,
          plan.warmup,
          what,
          () => startProfiling(child.process),
        ));
      } finally {
        await stopServer(child.process);
      }
      const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
      const { busyMicros, shares } = profileShares(profile, LIBRARY_SOURCE);
      const percent = (share: number) => `${(100 * share).toFixed(1)}%`;
      const library = shares.find((share) => share.owner === 'library');
      const largest = shares
        .filter((share) => share.owner !== 'idle')
        .slice(0, 6)
        .map((share) => `${share.owner.replace(/^package /, '')} ${percent(share.busyShare)}`)
        .join(', ');
      const cpu = `${Math.round(busyMicros / requests)} µs`;
      const hooks = `${Math.round(promiseHookMicros(profile, requests))} µs`;
      const frames = topFrames(profile, requests, 5)
        .map((frame) => `${frame.name} ${Math.round(frame.microsPerRequest)} µs`)
        .join(', ');
      lines.push(
        `| ${server} | ${scenario.name} | ${Math.round(rps)} | ${cpu} | **${percent(library?.busyShare ?? 0)}** | ${hooks} | ${largest} | ${frames} |`,
      );
      const own = topFrames(profile, requests, 8, (frame) => ownerOf(frame, LIBRARY_SOURCE) === 'library')
        .map((frame) => `${frame.name} ${frame.microsPerRequest.toFixed(1)} µs`)
        .join(', ');
      if (app === 'generated')
        libraryLines.push(`| ${server} | ${scenario.name} | ${Math.round(((library?.busyShare ?? 0) * busyMicros) / requests)} µs | ${own} |`);
      process.stderr.write(`profiled ${server} ${scenario.name}: library ${percent(library?.busyShare ?? 0)} of ${cpu} of CPU per request\n`);
    }
  }
  const libraryTable = ["The library's own functions by self time (µs per request):", '', '| server | scenario | library | functions |', '|---|---|---|---|'];
  process.stdout.write(`${[...lines, '', ...libraryTable, ...libraryLines].join('\n')}\n`);
} finally {
  if (keep) process.stderr.write(`profiles kept in ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
  await engine.stop();
}
