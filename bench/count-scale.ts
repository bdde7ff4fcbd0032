import mongoose from 'mongoose';
import { performance } from 'node:perf_hooks';
import { startEngine } from '../scripts/mongo-engine.js';
import { CollectionCount } from '../src/repository/collection-count.js';
import { seed } from './seed.js';

/**
 * `npm run bench:count [-- --sizes 1000,100000] [-- --samples 15]`: what `status.count` costs as a
 * collection grows, on the engine `MODEL_ROUTES_ENGINE` chooses (both FerretDB backends: run it once
 * with `MODEL_ROUTES_ENGINE=ferretdb-sqlite`). For each size: the library's read (`CollectionCount`,
 * the code a search runs: `$collStats`, else `estimatedDocumentCount()`), the two sources apart, and
 * `countDocuments({})` (the scan it avoids), each the median of `samples` reads, in milliseconds;
 * first on fresh data (FerretDB on PostgreSQL: before any ANALYZE), then after the `collStats`
 * command (which FerretDB on PostgreSQL answers with an ANALYZE), then after 10% more inserts
 * without one (how far the metadata lags). Each cell: the median time, and (in brackets) the value read. Prints a Markdown table.
 */
const sizes = (argument('--sizes') ?? '1000,100000').split(',').map(Number);
const samples = Number(argument('--samples') ?? 15);

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function median(read: () => Promise<unknown>): Promise<{ ms: number; value: unknown }> {
  const times: number[] = [];
  let value: unknown;
  await read();
  for (let n = 0; n < samples; n++) {
    const start = performance.now();
    value = await read();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, value };
}

const engine = await startEngine();
// `FerretDB v1.24.2 (PostgreSQL 15.18 backend; auto: ...) at ...` → `FerretDB v1.24.2, PostgreSQL 15.18 backend`.
const [, server = engine.description, backend] = /^([^(]*?)\s*\(([^;)]*)/.exec(engine.description) ?? [];
const label = backend ? `${server}, ${backend}` : server;
const rows: string[] = [];
try {
  for (const size of sizes) {
    const dbName = `count_scale_${size}_${Date.now().toString(36)}`;
    await seed(engine.uri, dbName, Math.max(1, size / 10), size);
    const connection = await mongoose.createConnection(engine.uri, { dbName }).asPromise();
    try {
      // The same documents in a collection whose statistics were never refreshed (no ANALYZE on PostgreSQL).
      const fresh = connection.db!.collection('fresh');
      for (let i = 0; i < size; i += 1000)
        await fresh.insertMany(
          Array.from({ length: Math.min(1000, size - i) }, (_, n) => ({ niceName: `company-${i + n}`, employees: (i + n) % 200, __v: 0 })),
        );
      await measureCollection(fresh, 'never analysed', size);
      const collection = connection.db!.collection('companies');
      await measureCollection(collection, 'after ANALYZE (seed)', size);
      await collection.insertMany(Array.from({ length: size / 10 }, (_, n) => ({ niceName: `late-${n}`, employees: n % 200, __v: 0 })));
      await measureCollection(collection, '+10% inserts, no ANALYZE', size + size / 10);
    } finally {
      await connection.dropDatabase();
      await connection.close();
    }
  }
  console.log("| engine | documents | statistics | status.count (the library's read) | $collStats count | estimatedDocumentCount | countDocuments({}) |");
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await engine.stop();
}

async function measureCollection(collection: mongoose.mongo.Collection, state: string, actual: number): Promise<void> {
  const sources = {
    collStats: () => collection.aggregate<{ count?: unknown }>([{ $collStats: { count: {} } }]).toArray(),
    estimated: () => collection.estimatedDocumentCount(),
  };
  const library = await median(() => new CollectionCount(sources).read());
  const stage = await median(async () => (await sources.collStats())[0]?.count);
  const estimated = await median(() => sources.estimated());
  const scan = await median(() => collection.countDocuments({}));
  const cell = ({ ms, value }: { ms: number; value: unknown }) => `${ms.toFixed(1)} ms (${String(value)})`;
  const row = `| ${label} | ${actual.toLocaleString('en')} | ${state} | ${cell(library)} | ${cell(stage)} | ${cell(estimated)} | ${cell(scan)} |`;
  rows.push(row);
  // As it goes too: a 100k run takes minutes.
  console.error(row);
}
