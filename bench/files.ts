import { randomBytes } from 'node:crypto';
import { cpus, totalmem } from 'node:os';
import mongoose from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';
import { fileBytes, fileHash, transfer, watchProcess, type ProcessCost } from './file-transfer.js';
import { spawnServer, stopServer } from './harness.js';

/**
 * `npm run bench:files [-- --quick] [--adapter express|fastify] [--rounds <n>] [--large <n>] [--seed <text>]`
 * (issue 14): upload and download throughput of a file field, and what the transfers cost the
 * server (RSS growth, CPU time), for the library's routes (`PUT|GET /box/:box_id/file`) and for the
 * same transfers written by hand with the driver's `GridFSBucket` (`bench/servers/files-handwritten.ts`),
 * on one engine. Each server runs in its own process, a fresh one per round, the two taking turns
 * (A B, then B A); in each: a warm-up, then per size N uploads, then N downloads (one at a time,
 * each to its own document), each batch watched by `watchProcess`, then the files deleted through
 * the routes and the bucket checked empty. Every answer is checked: a download whose SHA-256 is not
 * the upload's, or any error, fails the run. MB are 2^20 bytes, as `maxSize` counts them.
 * `--quick`: 1 MB only, 5 each way, one round, Express.
 */
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const option = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const seed = option('--seed') ?? randomBytes(4).toString('hex');
const MiB = 1024 * 1024;
const plan = quick
  ? { rounds: 1, warmup: 1, sizes: [{ label: '1 MB', bytes: MiB, count: 5 }], adapters: ['express'] }
  : {
      rounds: 3,
      warmup: 3,
      sizes: [
        { label: '1 MB', bytes: MiB, count: 40 },
        { label: '50 MB', bytes: 50 * MiB, count: 3 },
      ],
      adapters: option('--adapter') ? [option('--adapter')!] : ['express', 'fastify'],
    };
if (option('--rounds')) plan.rounds = Number(option('--rounds'));
// `--large <n>`: n 50 MB files each way instead of 3 (does the memory grow with their number?).
if (option('--large') && plan.sizes[1]) plan.sizes[1].count = Number(option('--large'));
const SERVERS = [
  { name: 'generated', script: 'files-generated.js', path: (id: string) => `/box/${id}/file` },
  { name: 'hand', script: 'files-handwritten.js', path: (id: string) => `/hand/${id}` },
] as const;
type ServerName = (typeof SERVERS)[number]['name'];
type Size = (typeof plan.sizes)[number];

interface Batch {
  mbps: number;
  cost: ProcessCost;
  /** The server's CPU time per MB transferred, ms. */
  cpuPerMB: number;
}
/** `adapter size direction` → server → one batch per round. */
const results = new Map<string, Partial<Record<ServerName, Batch[]>>>();

const engine = await startEngine();
const dbName = `bench_files_${Date.now().toString(36)}`;
const connection = await mongoose.createConnection(engine.uri, { dbName }).asPromise();
let failure: string | undefined;
process.stderr.write(`seed ${seed}\n`);
try {
  for (const adapter of plan.adapters) {
    for (let round = 1; round <= plan.rounds; round++) {
      for (const server of round % 2 ? SERVERS : [...SERVERS].reverse()) await measureServer(server, adapter, round);
    }
  }
  print();
} catch (error) {
  failure = error instanceof Error ? error.message : String(error);
} finally {
  await connection.close();
  await engine.stop();
}
if (failure) {
  process.stderr.write(`\nFAILED: ${failure}\n`);
  process.exit(1);
}

async function measureServer(server: (typeof SERVERS)[number], adapter: string, round: number): Promise<void> {
  const child = await spawnServer(server.script, { BENCH_URI: engine.uri, BENCH_DB: dbName, BENCH_ADAPTER: adapter });
  const run = `${adapter}/${server.name}/r${round}`;
  try {
    await transfers(server, child.port, `${run}/warmup`, { label: 'warm-up', bytes: MiB, count: plan.warmup });
    for (const size of plan.sizes) {
      const { up, down } = await transfers(server, child.port, `${run}/${size.label}`, size, child.process.pid!);
      for (const [direction, batch] of [
        ['upload', up],
        ['download', down],
      ] as const) {
        const key = `${adapter}|${size.label}|${direction}`;
        const row = results.get(key) ?? {};
        (row[server.name] ??= []).push(batch!);
        results.set(key, row);
        process.stderr.write(
          `${run.padEnd(24)} ${size.label.padStart(5)} ${direction.padEnd(8)} ${batch!.mbps.toFixed(1).padStart(6)} MB/s  RSS ` +
            `+${batch!.cost.rssGrowth.toFixed(1)} MiB (HWM +${batch!.cost.hwmGrowth.toFixed(1)})  CPU ${batch!.cpuPerMB.toFixed(1)} ms/MB\n`,
        );
      }
    }
  } finally {
    await stopServer(child.process);
  }
}

/**
 * `size.count` documents, a file uploaded to each, then downloaded from each, then deleted through
 * the routes; with `pid`, each direction watched by `watchProcess`. Throughput: the bytes of the
 * batch over the sum of its requests' times.
 */
async function transfers(server: (typeof SERVERS)[number], port: number, run: string, size: Size, pid?: number): Promise<{ up?: Batch; down?: Batch }> {
  const { insertedIds } = await connection.collection('boxes').insertMany(Array.from({ length: size.count }, (_, i) => ({ name: `${run}/${i}` })));
  const ids = Object.values(insertedIds).map(String);
  const hashes = ids.map((_, i) => fileHash(seed, `${run}/${i}`, size.bytes));
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${run}: ${what}`);
  };
  const batch = async (one: (id: string, i: number) => Promise<number>): Promise<Batch | undefined> => {
    const mb = (size.bytes * ids.length) / MiB;
    const all = async () => {
      let ms = 0;
      for (const [i, id] of ids.entries()) ms += await one(id, i);
      return mb / (ms / 1000);
    };
    if (pid === undefined) return void (await all());
    const { result, cost } = await watchProcess(pid, all);
    return { mbps: result, cost, cpuPerMB: cost.cpuMs / mb };
  };
  const up = await batch(async (id, i) => {
    const answer = await transfer(port, 'PUT', server.path(id), { chunks: fileBytes(seed, `${run}/${i}`, size.bytes), length: size.bytes, type: 'image/png' });
    check(answer.status === 200, `upload ${i} answered ${answer.status} ${answer.body.slice(0, 300)}`);
    const file = (JSON.parse(answer.body) as { file?: { size?: number; sha256?: string } }).file;
    check(file?.size === size.bytes, `upload ${i}: the document's file has ${file?.size} bytes, not ${size.bytes}`);
    if (server.name === 'generated') check(file?.sha256 === hashes[i], `upload ${i}: the document's sha256 ${file?.sha256} is not the upload's ${hashes[i]}`);
    return answer.ms;
  });
  const down = await batch(async (id, i) => {
    const answer = await transfer(port, 'GET', server.path(id));
    check(answer.status === 200, `download ${i} answered ${answer.status} ${answer.body.slice(0, 300)}`);
    check(answer.bytes === size.bytes, `download ${i}: ${answer.bytes} bytes, not ${size.bytes}`);
    check(answer.sha256 === hashes[i], `download ${i}: SHA-256 ${answer.sha256} is not the upload's ${hashes[i]}`);
    return answer.ms;
  });
  for (const id of ids) {
    const answer = await transfer(port, 'DELETE', server.path(id));
    check(answer.status === 200, `delete answered ${answer.status} ${answer.body.slice(0, 300)}`);
  }
  const left = {
    files: await connection.collection('boxes_files.files').countDocuments(),
    chunks: await connection.collection('boxes_files.chunks').countDocuments(),
  };
  check(left.files === 0 && left.chunks === 0, `after the deletes the bucket still holds ${left.files} files and ${left.chunks} chunks`);
  await connection.collection('boxes').deleteMany({});
  return { up, down };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function print(): void {
  const out = (line = '') => process.stdout.write(`${line}\n`);
  out();
  out(`Files: upload and download, medians of ${plan.rounds} round(s) (servers alternating A B / B A, a fresh process each); MB = 2^20 bytes`);
  out(
    `seed ${seed}; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB; engine: ` +
      `${engine.description.split(' at ')[0]}`,
  );
  out(
    `Sizes: ${plan.sizes.map((size) => `${size.label} × ${size.count} each way`).join(', ')} per round, after ${plan.warmup} warm-up transfer(s) of 1 MB ` +
      `each way`,
  );
  out(
    "RSS Δ: highest VmRSS sampled every 20 ms during the batch minus VmRSS before / VmHWM after minus VmRSS before (MiB); CPU: the server process's user + " +
      'system time per MB',
  );
  for (const adapter of plan.adapters) {
    out();
    out(`${adapter === 'fastify' ? 'Fastify' : 'Express'}`);
    out('| size | direction | generated MB/s | hand MB/s | generated/hand | generated RSS Δ MiB | hand RSS Δ MiB | generated CPU ms/MB | hand CPU ms/MB |');
    out('|---|---|--:|--:|--:|--:|--:|--:|--:|');
    for (const size of plan.sizes) {
      for (const direction of ['upload', 'download']) {
        const row = results.get(`${adapter}|${size.label}|${direction}`) ?? {};
        const speed = (name: ServerName) => median((row[name] ?? []).map((batch) => batch.mbps));
        const batches = (name: ServerName) => row[name] ?? [];
        const memory = (name: ServerName) =>
          `${median(batches(name).map((batch) => batch.cost.rssGrowth)).toFixed(1)} / ${median(batches(name).map((batch) => batch.cost.hwmGrowth)).toFixed(1)}`;
        const cpu = (name: ServerName) => median(batches(name).map((batch) => batch.cpuPerMB)).toFixed(1);
        out(
          `| ${size.label} | ${direction} | ${speed('generated').toFixed(1)} | ${speed('hand').toFixed(1)} | ` +
            `${(speed('generated') / speed('hand')).toFixed(2)} | ${memory('generated')} | ${memory('hand')} | ${cpu('generated')} | ${cpu('hand')} |`,
        );
      }
    }
  }
}
