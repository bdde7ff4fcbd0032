import { spawnSync } from 'node:child_process';
import mongoose from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';

/**
 * `node dist-bench/bench/soak-reconnect.js [runs] [recovery seconds] [connectTimeoutMS|-] [crash]`: the soak's outage with
 * Mongoose alone (no Nest, no library): 16 workers query and insert without pause, the embedded
 * FerretDB is suspended for 7 s and resumed, and each run says whether the connection came back.
 * It exists because the soak saw the app's connection stay down after the database had returned,
 * while a new client connected at once; this shows the same without the library.
 */
const runs = Number(process.argv[2] ?? 5);
const recoverySeconds = Number(process.argv[3] ?? 15);
/** The driver's connectTimeoutMS, which also bounds a monitor's check (default 30000). */
const connectTimeoutMS = process.argv[4] && process.argv[4] !== '-' ? Number(process.argv[4]) : undefined;
/** `crash` as 5th argument: FerretDB is killed (SIGKILL) rather than stopped (SIGTERM, which it drains). */
const crash = process.argv[5] === 'crash';

for (let run = 1; run <= runs; run++) {
  const engine = await startEngine({ log: () => undefined });
  const connection = await mongoose
    .createConnection(engine.uri, { dbName: 'reconnect', serverSelectionTimeoutMS: 3000, ...(connectTimeoutMS ? { connectTimeoutMS } : {}) })
    .asPromise();
  try {
    // The driver's monitoring, to tell a stuck monitor from one that sees the server and is not believed.
    const heartbeats: string[] = [];
    for (const event of ['serverHeartbeatStarted', 'serverHeartbeatSucceeded', 'serverHeartbeatFailed'] as const) {
      connection.getClient().on(event, () => heartbeats.push(`${Math.round(performance.now())} ${event}`));
    }
    const Item = connection.model('Item', new mongoose.Schema({ n: Number }));
    await Item.insertMany(Array.from({ length: 100 }, (_, n) => ({ n })));
    let running = true;
    const successes: number[] = [];
    // A fixed mix, no random generator: three reads for one insert.
    let turn = 0;
    const workers = Array.from({ length: 16 }, async () => {
      while (running) {
        try {
          if (turn++ % 4 !== 3)
            await Item.find({ n: { $gte: (turn * 37) % 100 } })
              .limit(20)
              .maxTimeMS(5000)
              .lean();
          else await Item.create({ n: 1 });
          successes.push(performance.now());
        } catch {
          // counted by its absence: only successes are recorded
        }
      }
    });
    await sleep(1000);
    await engine.suspend!({ crash });
    await sleep(7000);
    await engine.resume!();
    const up = performance.now();
    await sleep(recoverySeconds * 1000);
    running = false;
    await Promise.all(workers);
    const first = successes.find((at) => at > up);
    process.stdout.write(
      `run ${run}: ` +
        (first === undefined
          ? `no success within ${recoverySeconds} s of the resume (readyState ${connection.readyState})`
          : `first success ${Math.round(first - up)} ms after the resume`) +
        '\n',
    );
    if (first === undefined) {
      process.stdout.write(`  resumed at ${Math.round(up)}; last heartbeat events: ${heartbeats.slice(-6).join(', ')}\n`);
      const port = new URL(engine.uri).port;
      process.stdout.write(
        `  sockets of port ${port} (TIME-WAIT left out):\n${spawnSync('ss', ['-tanpo'], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter((row) => row.includes(`:${port} `) && !row.startsWith('TIME-WAIT'))
          .join('\n')}\n`,
      );
    }
  } finally {
    await connection.close();
    await engine.stop();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
