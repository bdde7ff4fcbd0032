import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import mongoose, { Types } from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';
import { startServer, stopServer } from './harness.js';
import { seed } from './seed.js';

/**
 * `npm run bench:engine-indexes`: what the embedded engine's GIN twins (scripts/engine/gin-twins.ts)
 * change, on the same data at the same moment (issue 26). FerretDB on PostgreSQL; per size (1,000,
 * 10,000, 100,000 companies, one owner per ten): the generated routes through HTTP (get one, the
 * reverse route, an equality search, one request at a time) and the driver's own queries, p50 of 21
 * after 3 of warm-up; then the twins are dropped in PostgreSQL and the same requests run again.
 */
const SIZES = [1000, 10000, 100000];
const engine = await startEngine({ engine: 'ferretdb-postgresql' });
const postgres = engine.postgres!;
const psql = existsSync(join(postgres.bin, 'psql')) ? join(postgres.bin, 'psql') : 'psql';
const sql = (query: string) => execFileSync(psql, [postgres.url, '-XAtq', '-c', query], { encoding: 'utf8' }).split('\n').filter(Boolean);

async function p50(run: (turn: number) => Promise<unknown>): Promise<number> {
  for (let turn = 0; turn < 3; turn++) await run(turn);
  const times: number[] = [];
  for (let turn = 3; turn < 24; turn++) {
    const started = performance.now();
    await run(turn);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[10]!;
}

const lines = ['| companies | request | with the twins | without | without / with |', '|---|---|---|---|---|'];
try {
  for (const size of SIZES) {
    const db = `engine_indexes_${size}`;
    const data = await seed(engine.uri, db, size / 10, size);
    const user = (turn: number) => data.users[(turn * 13) % data.users.length]!;
    const company = (turn: number) => data.companies[(turn * 7919) % data.companies.length]!;
    const connection = await mongoose.createConnection(engine.uri, { dbName: db, maxPoolSize: 1 }).asPromise();
    const companies = connection.db!.collection('companies');
    const measureAll = async () => {
      const results: Array<[string, number]> = [];
      const server = await startServer('generated', engine.uri, db);
      try {
        const get = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`).then((response) => response.text());
        results.push(['GET /company/:id', await p50((turn) => get(`/company/${company(turn)}`))]);
        results.push(['GET /user/:id/companies/owner?limit=20', await p50((turn) => get(`/user/${user(turn)}/companies/owner?limit=20`))]);
        results.push(['GET /companies?owner=<id>&limit=20', await p50((turn) => get(`/companies?owner=${user(turn)}&limit=20`))]);
      } finally {
        await stopServer(server.process);
      }
      results.push([
        'driver find({ owner }).limit(20)',
        await p50((turn) =>
          companies
            .find({ owner: new Types.ObjectId(user(turn)) })
            .limit(20)
            .toArray(),
        ),
      ]);
      results.push(['driver countDocuments({ owner })', await p50((turn) => companies.countDocuments({ owner: new Types.ObjectId(user(turn)) }))]);
      results.push(['driver findOne({ _id })', await p50((turn) => companies.findOne({ _id: new Types.ObjectId(company(turn)) }))]);
      return results;
    };
    const withTwins = await measureAll();
    for (const twin of sql(`SELECT indexname FROM pg_indexes WHERE schemaname = '${db}' AND indexname LIKE '%\\_mr\\_gin'`))
      sql(`DROP INDEX "${db}"."${twin}"`);
    const without = await measureAll();
    withTwins.forEach(([name, time], index) => {
      const other = without[index]![1];
      lines.push(`| ${size} | ${name} | ${time.toFixed(1)} ms | ${other.toFixed(1)} ms | ${(other / time).toFixed(1)} |`);
    });
    await connection.dropDatabase();
    await connection.close();
  }
} finally {
  await engine.stop();
}
process.stdout.write(`${lines.join('\n')}\n`);
