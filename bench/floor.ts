import { cpus } from 'node:os';
import { startEngine } from '../scripts/mongo-engine.js';
import { measure, pick, spawnServer, stopServer, type Load } from './harness.js';
import { median, pairedCell, pairedRatio, rotated, verdict, type Measure } from './measure.js';
import { countArgument, SCENARIOS } from './scenarios.js';
import { seed } from './seed.js';

/**
 * `npm run bench:floor [-- --rounds 5 --seconds 5 --quick]`: "get one" on the generated routes
 * and on the hand-written controller (Express and Fastify) against its floor, Node's `http` and the
 * MongoDB driver alone (`bench/servers/floor.ts`), so that the platform's own cost shows apart from
 * the library's. The five servers run at once and are measured in turn, `--rounds`
 * slices of `--seconds` each at 8 connections, the order rotating (the engine's speed drifts over
 * minutes); printed: each server's median requests per second and its ratio to the floor's.
 */
const quick = process.argv.includes('--quick');
const rounds = countArgument(process.argv, 'rounds') ?? (quick ? 1 : 5);
const seconds = countArgument(process.argv, 'seconds') ?? (quick ? 1 : 5);
const load: Load = { connections: 8, duration: seconds };
const warmup: Load = quick ? { connections: 8, amount: 50 } : { connections: 8, duration: 2 };
const NO_WARMUP: Load = { connections: 1, amount: 0 };
const getOne = SCENARIOS.find((scenario) => scenario.name === 'get one')!.request.generated!;
const SERVERS = [
  { name: 'floor (node:http + driver)', script: 'floor.js', adapter: 'express' },
  { name: 'generated (Express)', script: 'generated.js', adapter: 'express' },
  { name: 'generated (Fastify)', script: 'generated.js', adapter: 'fastify' },
  { name: 'hand-written (Express)', script: 'handwritten.js', adapter: 'express' },
  { name: 'hand-written (Fastify)', script: 'handwritten.js', adapter: 'fastify' },
] as const;

const engine = await startEngine();
const dbName = `floor_${Date.now().toString(36)}`;
try {
  const ids = pick(await seed(engine.uri, dbName, quick ? 50 : 500, quick ? 500 : 5000));
  const servers = await Promise.all(
    SERVERS.map(async (server) => ({
      ...server,
      ...(await spawnServer(server.script, { BENCH_URI: engine.uri, BENCH_DB: dbName, BENCH_ADAPTER: server.adapter })),
    })),
  );
  const measures = new Map<string, Measure[]>(SERVERS.map((server) => [server.name, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const server of rotated(servers, round)) {
        const measured = await measure(server.port, () => getOne(ids), load, round === 0 ? warmup : NO_WARMUP, `get one on ${server.name}`);
        measures.get(server.name)!.push(measured);
        console.log(`round ${round + 1} ${server.name.padEnd(28)} ${measured.rps.toFixed(0).padStart(6)} req/s`);
      }
    }
  } finally {
    await Promise.all(servers.map((server) => stopServer(server.process)));
  }
  const floor = median(measures.get(SERVERS[0].name))!.rps;
  console.log(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; Node ${process.version}; engine: ${engine.description.split(' at ')[0]}`);
  console.log(`get one, 8 connections, ${rounds} rounds of ${seconds} s, medians:\n`);
  // The target (issue 40): the generated routes' get one at 0.9 or more of the floor, judged on the rounds' own ratios.
  console.log("| server | req/s | against the floor (medians) | paired: median of the rounds' ratios (interval) | target 0.90 |\n|---|---|---|---|---|");
  const floorMeasures = measures.get(SERVERS[0].name);
  for (const server of SERVERS) {
    const rps = median(measures.get(server.name))!.rps;
    const paired = server === SERVERS[0] ? undefined : pairedRatio(measures.get(server.name), floorMeasures);
    const judged = paired && server.script === 'generated.js' ? verdict(paired, 0.9) : '';
    console.log(`| ${server.name} | ${rps.toFixed(0)} | ${(rps / floor).toFixed(2)} | ${pairedCell(paired)} | ${judged} |`);
  }
} finally {
  await engine.stop();
}
