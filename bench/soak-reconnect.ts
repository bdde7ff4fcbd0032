import mongoose from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';

/**
 * `node dist-bench/bench/soak-reconnect.js [runs] [recovery seconds]`: the soak's outage with
 * Mongoose alone (no Nest, no library): 16 workers query and insert without pause, the embedded
 * FerretDB is suspended for 7 s and resumed, and each run says whether the connection came back.
 * It exists because the soak saw the app's connection stay down after the database had returned,
 * while a new client connected at once; this shows the same without the library.
 */
const runs = Number(process.argv[2] ?? 5);
const recoverySeconds = Number(process.argv[3] ?? 15);

for (let run = 1; run <= runs; run++) {
  const engine = await startEngine({ log: () => undefined });
  const connection = await mongoose.createConnection(engine.uri, { dbName: 'reconnect', serverSelectionTimeoutMS: 3000 }).asPromise();
  try {
    const Item = connection.model('Item', new mongoose.Schema({ n: Number }));
    await Item.insertMany(Array.from({ length: 100 }, (_, n) => ({ n })));
    let running = true;
    const successes: number[] = [];
    const workers = Array.from({ length: 16 }, async () => {
      while (running) {
        try {
          if (Math.random() < 0.75) await Item.find({ n: { $gte: Math.floor(Math.random() * 100) } }).limit(20).maxTimeMS(5000).lean();
          else await Item.create({ n: 1 });
          successes.push(performance.now());
        } catch {
          // counted by its absence: only successes are recorded
        }
      }
    });
    await sleep(1000);
    await engine.suspend!();
    await sleep(7000);
    await engine.resume!();
    const up = performance.now();
    await sleep(recoverySeconds * 1000);
    running = false;
    await Promise.all(workers);
    const first = successes.find((at) => at > up);
    process.stdout.write(`run ${run}: ${first === undefined ? `no success within ${recoverySeconds} s of the resume (readyState ${connection.readyState})` : `first success ${Math.round(first - up)} ms after the resume`}\n`);
  } finally {
    await connection.close();
    await engine.stop();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
