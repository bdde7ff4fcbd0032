import mongoose, { Types } from 'mongoose';
import { CREATED_NAMES } from './scenarios.js';

const LOCATIONS = ['Paris', 'Lyon', 'London', 'Berlin', 'Madrid'];

/**
 * Fills `dbName` with `users` entrepreneurs, `companies` companies and `ventures` ventures (the
 * serialization scenario's model, spread over the same locations); returns the ids of the first two.
 */
export async function seed(uri: string, dbName: string, users: number, companies: number, ventures = 0): Promise<{ users: string[]; companies: string[] }> {
  const connection = await mongoose.createConnection(uri, { dbName }).asPromise();
  try {
    await connection.dropDatabase();
    const userIds = Array.from({ length: users }, () => new Types.ObjectId());
    const companyIds = Array.from({ length: companies }, () => new Types.ObjectId());
    const db = connection.db!;
    for (let i = 0; i < users; i += 1000) {
      await db
        .collection('entrepreneurs')
        .insertMany(userIds.slice(i, i + 1000).map((_id, j) => ({ _id, niceName: `user-${i + j}`, birth: new Date(1950, 0, 1 + j), __v: 0 })));
    }
    for (let i = 0; i < companies; i += 1000) {
      await db.collection('companies').insertMany(
        companyIds.slice(i, i + 1000).map((_id, j) => ({
          _id,
          niceName: `company-${i + j}`,
          owner: userIds[(i + j) % users],
          employees: (i + j) % 200,
          location: LOCATIONS[(i + j) % LOCATIONS.length],
          __v: 0,
        })),
      );
    }
    for (let i = 0; i < ventures; i += 1000) {
      await db.collection('ventures').insertMany(
        Array.from({ length: Math.min(1000, ventures - i) }, (_, j) => ({
          niceName: `venture-${i + j}`,
          employees: (i + j) % 200,
          location: LOCATIONS[(i + j) % LOCATIONS.length],
          revenue: 1000 * (i + j),
          __v: 0,
        })),
      );
    }
    // What every server relies on; the library creates it itself, a careful user would too.
    await db.collection('companies').createIndex({ owner: 1 });
    await refreshStatistics(db);
    return { users: userIds.map(String), companies: companyIds.map(String) };
  } finally {
    await connection.close();
  }
}

/**
 * Brings the engine's collection statistics up to date, as a database's routine maintenance does:
 * the `collStats` command, which FerretDB on PostgreSQL answers after an `ANALYZE` (its `$collStats`
 * count is PostgreSQL's row estimate, -1 until then, and the engine helper's throw-away clusters
 * run without autovacuum). On MongoDB it only reads the statistics.
 */
async function refreshStatistics(db: NonNullable<mongoose.Connection['db']>): Promise<void> {
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) await db.command({ collStats: name });
}

/**
 * Removes what the create scenarios added (tens of thousands of companies per server), so each
 * server starts from the same data, and reclaims their space as autovacuum would (`compact`, which
 * FerretDB runs as `VACUUM ANALYZE`): on a cluster without autovacuum, every server after the first
 * would otherwise read a table and indexes full of dead rows (measured: get one fell from 1,228 to
 * 119 requests/s over one round).
 */
export async function reset(uri: string, dbName: string): Promise<void> {
  const connection = await mongoose.createConnection(uri, { dbName }).asPromise();
  try {
    const companies = connection.db!.collection('companies');
    for (const niceName of CREATED_NAMES) await companies.deleteMany({ niceName });
    await connection.db!.command({ compact: 'companies' });
  } finally {
    await connection.close();
  }
}
