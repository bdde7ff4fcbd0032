import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { cpuMicroseconds, measure, pick, spawnServer, stopServer, type Load } from './harness.js';
import { rotated } from './measure.js';
import { countArgument, onlyArguments, SCENARIOS, selectScenarios } from './scenarios.js';
import { reset, seed } from './seed.js';
import { GUARANTEE_NAMES, guaranteeVariants, guaranteesTable, type Variant, type VariantMeasure } from './guarantees-table.js';

/**
 * `npm run bench:guarantees [-- --seconds 3 --rounds 4 --rate 200 --brief --rps-only --adapter fastify --quick]`: what each guarantee
 * of the library's write routes costs, priced on the hand-written controller. For each platform and
 * each write scenario (modify, create), the generated server, the hand-written one as it is, the
 * hand-written one with one guarantee of the library added (`BENCH_HANDWRITTEN_GUARANTEES`, see
 * `bench/servers/handwritten.ts`), and with all of them, are started at once, then measured in
 * turn, `--rounds` slices of `--seconds` each (the order rotating): requests per second at 8
 * connections, then the server's CPU time per request (user + system, from `/proc/<pid>/stat`) at
 * a fixed rate. The table ends with the generated server against the hand-written one that gives
 * the same guarantees.
 */
const quick = process.argv.includes('--quick');
const slices = countArgument(process.argv, 'rounds') ?? (quick ? 1 : 4);
const seconds = countArgument(process.argv, 'seconds') ?? (quick ? 1 : 3);
/**
 * Two measures per slice: requests/s at 8 connections (the bench's measure), and the CPU time per
 * request at a fixed rate every variant sustains (`--rate`, default 200/s), where each server
 * handles the same arrivals: under a closed loop a slower server wakes for fewer requests at a
 * time and pays more CPU per request for it, so CPU per request there compares the loads as much
 * as the servers.
 */
const load: Load = { connections: 8, duration: seconds };
const rate = countArgument(process.argv, 'rate') ?? 200;
const fixedRate: Load = { connections: 8, duration: seconds, rate };
const warmup: Load = quick ? { connections: 8, amount: 50 } : { connections: 8, duration: 2 };
const NO_WARMUP: Load = { connections: 1, amount: 0 };
/** `--only <text>`: the write scenarios to price (by default modify and create). */
const only = onlyArguments(process.argv);
/** `--brief`: the generated server, the plain hand-written one and the one with the same guarantees only. */
const brief = process.argv.includes('--brief');
/** `--rps-only`: requests/s at 8 connections only, without the CPU time at a fixed rate (half the time, for more slices). */
const rpsOnly = process.argv.includes('--rps-only');
const data = quick ? { users: 100, companies: 500 } : { users: 500, companies: 5000 };
/** `--adapter express|fastify`: one platform only (both by default). */
const adapterIndex = process.argv.indexOf('--adapter');
const adapterArgument = adapterIndex >= 0 ? process.argv[adapterIndex + 1] : undefined;
if (adapterArgument !== undefined && adapterArgument !== 'express' && adapterArgument !== 'fastify') throw new Error('--adapter needs express or fastify');
const adapters: Array<'express' | 'fastify'> = adapterArgument ? [adapterArgument] : ['express', 'fastify'];

const engine = await startEngine();
const dbName = `guarantees_${Date.now().toString(36)}`;
try {
  const ids = pick(await seed(engine.uri, dbName, data.users, data.companies));
  const results: VariantMeasure[] = [];
  for (const adapter of adapters) {
    for (const scenario of only.length ? selectScenarios(SCENARIOS, only) : SCENARIOS.filter((candidate) => ['modify', 'create'].includes(candidate.name))) {
      await reset(engine.uri, dbName);
      // Every variant up at once, measured in turn slice after slice: the engine's speed drifts over minutes (see `npm run bench -- --interleave`).
      const servers = new Map<Variant, Awaited<ReturnType<typeof spawnServer>>>();
      try {
        for (const variant of guaranteeVariants(brief)) {
          servers.set(
            variant,
            await spawnServer(`${variant.app}.js`, {
              BENCH_URI: engine.uri,
              BENCH_DB: dbName,
              BENCH_ADAPTER: adapter,
              BENCH_HANDWRITTEN_GUARANTEES: variant.guarantees.join(','),
            }),
          );
        }
        for (let slice = 0; slice < slices; slice++) {
          for (const [variant, server] of rotated([...servers], slice)) {
            const request = scenario.request[variant.app]!;
            let before = 0;
            const what = `${adapter} ${scenario.name} ${variant.label}`;
            const measured = await measure(server.port, () => request(ids), load, slice === 0 ? warmup : NO_WARMUP, what);
            if (rpsOnly) {
              results.push({ adapter, scenario: scenario.name, variant: variant.label, rps: measured.rps, cpu: Number.NaN });
              console.log(`slice ${slice + 1} ${what.padEnd(48)} ${measured.rps.toFixed(0).padStart(5)} req/s`);
              continue;
            }
            const paced = await measure(
              server.port,
              () => request(ids),
              fixedRate,
              NO_WARMUP,
              `${what} at ${rate}/s`,
              async () => void (before = cpuMicroseconds(server.process.pid!)),
            );
            const cpu = (cpuMicroseconds(server.process.pid!) - before) / paced.requests;
            results.push({ adapter, scenario: scenario.name, variant: variant.label, rps: measured.rps, cpu });
            console.log(
              `slice ${slice + 1} ${what.padEnd(48)} ${measured.rps.toFixed(0).padStart(5)} req/s ${cpu.toFixed(0).padStart(6)} µs CPU/request at ${rate}/s`,
            );
          }
        }
      } finally {
        for (const server of servers.values()) await stopServer(server.process);
      }
    }
  }
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`);
  console.log(
    `Data: ${data.users} entrepreneurs, ${data.companies} companies; 8 connections, then a fixed ${rate} requests/s for the CPU time; ${seconds} s each ` +
      `per variant and slice, ${slices} slice(s): every variant up at once, measured in turn, the order rotating (median)`,
  );
  console.log(`Guarantees added to the hand-written controller: ${GUARANTEE_NAMES.join(', ')} (see bench/servers/handwritten.ts)\n`);
  console.log(guaranteesTable(results).join('\n'));
} finally {
  await engine.stop();
}
