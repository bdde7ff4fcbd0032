import mongoose, { Types } from 'mongoose';
import { startEngine } from '../scripts/mongo-engine.js';

/**
 * `tsc -p bench/tsconfig.json && node dist-bench/bench/scope-pushdown.js` (issue 28, beside
 * `npm run bench:rules`; `MODEL_ROUTES_ENGINE=ferretdb-sqlite` for the SQLite backend): the mean time
 * of a `findOne` by the driver alone, one at a time, for each shape of filter a get one may send:
 * `{ _id }` without a scope, `{ tenant, _id }` as the repository ANDs a row scope into it (the
 * scope's keys first), the same keys the other way round, and `{ $and }` (what `allOf` answers when
 * two filters name the same key). 5,000 documents of two tenants, an index on `tenant`; each shape
 * 40 times after a round of warm-up; every `findOne` must find its document.
 */
const COUNT = 5000;
const TIMES = 40;
const engine = await startEngine();
const connection = await mongoose.createConnection(engine.uri, { dbName: `scope_pushdown_${Date.now().toString(36)}` }).asPromise();
try {
  const items = connection.db!.collection('items');
  const documents = Array.from({ length: COUNT }, (_, i) => ({ _id: new Types.ObjectId(), tenant: i % 2 ? 'south' : 'north', niceName: `item-${i}` }));
  await items.insertMany(documents);
  await items.createIndex({ tenant: 1 });
  const north = documents.filter((document) => document.tenant === 'north');
  const shapes: Record<string, (id: Types.ObjectId) => Record<string, unknown>> = {
    '{ _id }': (_id) => ({ _id }),
    '{ tenant, _id }': (_id) => ({ tenant: 'north', _id }),
    '{ _id, tenant }': (_id) => ({ _id, tenant: 'north' }),
    '{ $and: [{ _id }, { tenant }] }': (_id) => ({ $and: [{ _id }, { tenant: 'north' }] }),
  };
  for (const measured of [false, true]) {
    for (const [name, shape] of Object.entries(shapes)) {
      const start = performance.now();
      for (let i = 0; i < TIMES; i++) {
        if (!(await items.findOne(shape(north[(i * 7) % north.length]!._id)))) throw new Error(`${name}: a seeded document not found`);
      }
      if (measured) process.stdout.write(`${name.padEnd(34)} ${((performance.now() - start) / TIMES).toFixed(2)} ms per findOne\n`);
    }
  }
  process.stdout.write(`${engine.description.split(' at ')[0]}; ${COUNT.toLocaleString('en')} documents\n`);
  await connection.dropDatabase();
} finally {
  await connection.close();
  await engine.stop();
}
