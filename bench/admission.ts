import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { measure, pick, spawnServer, stopServer, type Load } from './harness.js';
import { median, pairedCell, pairedRatio, rotated, type Measure } from './measure.js';
import { countArgument, onlyArguments, SCENARIOS, selectScenarios } from './scenarios.js';
import { reset, seed } from './seed.js';

/**
 * `npm run bench:admission [-- --only modify --rounds 9 --seconds 3 --quick]`: what the admission
 * limit costs a load it does not need to shed. For each scenario, the generated routes with the
 * default (adaptive) limit, with a fixed `concurrency` of 25, and with none (`admission: false`),
 * beside the hand-written controller, on Express and Fastify: the servers of one platform up at
 * once and measured in turn, slice after slice, the order rotating, at 8 connections. Printed: each
 * server's median requests/s and its paired ratio (`pairedRatio`) to the hand-written controller's.
 */
const quick = process.argv.includes('--quick');
const rounds = countArgument(process.argv, 'rounds') ?? (quick ? 1 : 9);
const seconds = countArgument(process.argv, 'seconds') ?? (quick ? 1 : 3);
const load: Load = quick ? { connections: 8, amount: 50 } : { connections: 8, duration: seconds };
const warmup: Load = quick ? { connections: 8, amount: 20 } : { connections: 8, duration: 2 };
const NO_WARMUP: Load = { connections: 1, amount: 0 };
const only = onlyArguments(process.argv);
const scenarios = selectScenarios(SCENARIOS, only.length ? only : ['get one', 'modify', 'create']).filter(
  (scenario) => scenario.request.generated && scenario.request.handwritten && !scenario.setup,
);
const VARIANTS = [
  { name: 'generated, adaptive limit (default)', script: 'generated.js', env: {} },
  { name: 'generated, concurrency 25', script: 'generated.js', env: { BENCH_ADMISSION: '25,50' } },
  { name: 'generated, no limit', script: 'generated.js', env: { BENCH_ADMISSION: 'off' } },
  { name: 'hand-written', script: 'handwritten.js', env: {} },
] as const;

const engine = await startEngine();
const dbName = `admission_${Date.now().toString(36)}`;
const lines: string[] = [];
try {
  const ids = pick(await seed(engine.uri, dbName, quick ? 50 : 500, quick ? 500 : 5000));
  for (const adapter of ['express', 'fastify'] as const) {
    for (const scenario of scenarios) {
      await reset(engine.uri, dbName);
      const servers = await Promise.all(
        VARIANTS.map(async (variant) => ({
          ...variant,
          ...(await spawnServer(variant.script, { BENCH_URI: engine.uri, BENCH_DB: dbName, BENCH_ADAPTER: adapter, ...variant.env })),
        })),
      );
      const measures = new Map<string, Measure[]>(VARIANTS.map((variant) => [variant.name, []]));
      try {
        for (let round = 0; round < rounds; round++) {
          for (const server of rotated(servers, round)) {
            const build = server.script === 'generated.js' ? scenario.request.generated! : scenario.request.handwritten!;
            const measured = await measure(server.port, () => build(ids), load, round === 0 ? warmup : NO_WARMUP, `${scenario.name} on ${server.name}`);
            measures.get(server.name)!.push(measured);
            process.stderr.write(`round ${round + 1} ${adapter} ${scenario.name} ${server.name}: ${measured.rps.toFixed(0)} req/s\n`);
          }
        }
      } finally {
        await Promise.all(servers.map((server) => stopServer(server.process)));
      }
      const handwritten = measures.get('hand-written');
      for (const variant of VARIANTS) {
        const rps = median(measures.get(variant.name))!.rps;
        const paired = variant.name === 'hand-written' ? undefined : pairedRatio(measures.get(variant.name), handwritten);
        lines.push(`| ${adapter} | ${scenario.name} | ${variant.name} | ${rps.toFixed(0)} | ${pairedCell(paired)} |`);
      }
    }
  }
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`);
  console.log(`8 connections, ${rounds} slices of ${seconds} s, the servers of a platform in turn:\n`);
  console.log('| platform | scenario | server | req/s (median) | against the hand-written (paired) |\n|---|---|---|---|---|');
  for (const line of lines) console.log(line);
} finally {
  await engine.stop();
}
