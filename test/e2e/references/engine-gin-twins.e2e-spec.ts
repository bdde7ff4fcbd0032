/**
 * Issue 26, item 3: on FerretDB's PostgreSQL backend the engine helper gives each of FerretDB's
 * indexes a GIN twin (`<original>_mr_gin`, `jsonb_path_ops`), which the equality FerretDB pushes
 * down (`_jsonb->'owner' @> ...`) can use, and drops it with its index (scripts/engine/gin-twins.ts).
 * Nothing in the library or the application takes part: the reference index the library declares
 * gets its twin when Mongoose creates it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Connection } from 'mongoose';
import { chooseFerretDbBackend, type Engine } from '../../../scripts/mongo-engine.js';
import { Company, Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { isFerretDb, useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function engineGinTwinsSpec(): void {
  const unavailable = process.env.MONGODB_URI
    ? 'MONGODB_URI: an external engine, whose indexes the engine helper does not manage'
    : !isFerretDb()
      ? 'not FerretDB: the GIN twins are the engine helper’s, on FerretDB’s PostgreSQL backend'
      : chooseFerretDbBackend().backend !== 'postgresql'
        ? 'FerretDB on SQLite: no event triggers, no expression indexes FerretDB pushes down to (docs/scaling.md)'
        : undefined;
  if (unavailable) {
    it.skip(`every GIN twin test [skipped: ${unavailable}]`, () => undefined);
    return;
  }

  const engine = useEngine();
  let t: TestApp;
  let connection: Connection;
  let schema: string;

  /** Runs SQL statements in one psql session of the engine's cluster; the rows of the last, `|`-separated. */
  function sql(...statements: string[]): string[] {
    const { postgres } = engine.get() as Engine & { postgres: NonNullable<Engine['postgres']> };
    const args = [postgres.url, '-XAtq', '-v', 'ON_ERROR_STOP=1', ...statements.flatMap((statement) => ['-c', statement])];
    // psql beside the server binaries, else on the PATH (Debian links initdb and postgres only).
    const psql = existsSync(join(postgres.bin, 'psql')) ? join(postgres.bin, 'psql') : 'psql';
    return execFileSync(psql, args, { encoding: 'utf8' }).split('\n').filter(Boolean);
  }

  /** FerretDB's PostgreSQL table for a collection of this app's database (from its metadata). */
  function tableOf(collection: string): string | undefined {
    return sql(`SELECT _jsonb->>'table' FROM "${schema}"._ferretdb_database_metadata WHERE _jsonb->>'_id' = '${collection}'`)[0];
  }

  /** The indexes PostgreSQL holds for a collection of this app's database: name → definition. */
  function pgIndexes(collection: string): Map<string, string> {
    const table = tableOf(collection);
    if (!table) return new Map();
    const rows = sql(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = '${schema}' AND tablename = '${table}' ORDER BY indexname`);
    return new Map(rows.map((row) => row.split('|') as [string, string]));
  }

  /** FerretDB's own PostgreSQL index for the Mongo index `name` (from its metadata). */
  function ferretIndex(collection: string, name: string): string {
    const [pgIndex] = sql(
      `SELECT i->>'pgindex' FROM "${schema}"._ferretdb_database_metadata, jsonb_array_elements(_jsonb->'indexes') i ` +
        `WHERE _jsonb->>'_id' = '${collection}' AND i->>'name' = '${name}'`,
    );
    if (!pgIndex) throw new Error(`FerretDB has no index ${name} on ${collection}`);
    return pgIndex;
  }

  beforeAll(async () => {
    // This file's own cluster plans as a large table would be: these tables are too small for
    // PostgreSQL to prefer any index on its own. Set before FerretDB opens its connections.
    sql('ALTER DATABASE ferretdb SET enable_seqscan = off');
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Team] });
    connection = t.connection;
    // The models' indexes (the library's reference indexes among them) exist once init() resolves.
    await Promise.all(Object.values(connection.models).map((model) => model.init()));
    schema = connection.db!.databaseName;
  });
  afterAll(() => t?.close());

  it('the index the library declares on a reference gets a GIN twin that the pushed-down equality uses, and the reverse route answers through it', async () => {
    const original = ferretIndex('companies', 'owner_1');
    const indexes = pgIndexes('companies');
    expect(indexes.get(original)).toMatch(/ USING btree \(\(\(_jsonb -> 'owner'::text\)\)\)$/);
    expect(indexes.get(`${original}_mr_gin`)).toBe(
      `CREATE INDEX ${original}_mr_gin ON ${schema}.${tableOf('companies')} USING gin (((_jsonb -> 'owner'::text)) jsonb_path_ops) WITH (fastupdate=off)`,
    );
    // FerretDB lists the indexes of its metadata: the twin is not a MongoDB index.
    expect((await connection.model('Company').listIndexes()).map((index) => index.name).sort()).toEqual(['_id_', 'owner_1']);

    const ada = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body;
    const bob = (await t.http().post('/user').send({ niceName: 'Bob' }).expect(201)).body;
    for (const [niceName, owner] of [
      ['Analytical', ada._id],
      ['Engines', ada._id],
      ['Bobcat', bob._id],
    ]) {
      await t.http().post('/company').send({ niceName, owner }).expect(201);
    }
    const page = await t.http().get(`/user/${ada._id}/companies/owner?sort=niceName`).expect(200);
    expect(page.body.result.map((company: { niceName: string }) => company.niceName)).toEqual(['Analytical', 'Engines']);

    // What FerretDB sends to PostgreSQL for the route's condition, and PostgreSQL's plan for it
    // (FerretDB's explain): served by the twin.
    const explained = JSON.stringify(await connection.model('Company').find({ owner: ada._id }).limit(20).explain());
    expect(explained).toMatch(/_jsonb -> 'owner'::text\) @> /);
    expect(explained).toContain(`"Index Name":"${original}_mr_gin"`);
  });

  it('_id gets a twin too: a lookup by _id (GET /company/:id), which FerretDB sends as a containment as well, is served by it', async () => {
    const original = ferretIndex('companies', '_id_');
    expect(pgIndexes('companies').get(`${original}_mr_gin`)).toMatch(/ USING gin \(\(\(_jsonb -> '_id'::text\)\) jsonb_path_ops\) WITH \(fastupdate=off\)$/);
    const company = (await t.http().post('/company').send({ niceName: 'Lookup' }).expect(201)).body;
    expect((await t.http().get(`/company/${company._id}`).expect(200)).body.niceName).toBe('Lookup');
    const explained = JSON.stringify(await connection.model('Company').find({ _id: company._id }).explain());
    expect(explained).toContain(`"Index Name":"${original}_mr_gin"`);
  });

  it('the twin goes when its index is dropped, and comes back when the index is created again', async () => {
    const companies = connection.model('Company').collection;
    const original = ferretIndex('companies', 'owner_1');
    await companies.dropIndex('owner_1');
    const after = pgIndexes('companies');
    expect(after.has(original)).toBe(false);
    expect(after.has(`${original}_mr_gin`)).toBe(false);
    expect([...after.keys()].filter((name) => name.endsWith('_mr_gin'))).toEqual([`${ferretIndex('companies', '_id_')}_mr_gin`]);

    await connection.model('Company').syncIndexes();
    const again = ferretIndex('companies', 'owner_1');
    expect(pgIndexes('companies').has(`${again}_mr_gin`)).toBe(true);
  });

  it(
    'an array of references gets a twin too; a compound index one twin with a column per top-level path; a nested path none; a dropped collection takes ' +
      'its twins',
    async () => {
      expect(pgIndexes('teams').has(`${ferretIndex('teams', 'members_1')}_mr_gin`)).toBe(true);

      const scratch = connection.db!.collection('scratch');
      await scratch.insertOne({ a: 1, b: 'x', address: { city: 'Paris' } });
      await scratch.createIndex({ a: 1, b: -1 });
      await scratch.createIndex({ 'address.city': 1 });
      await scratch.createIndex({ 'address.city': 1, a: 1 });
      const indexes = pgIndexes('scratch');
      const compound = ferretIndex('scratch', 'a_1_b_-1');
      expect(indexes.get(`${compound}_mr_gin`)).toMatch(
        /USING gin \(\(\(_jsonb -> 'a'::text\)\) jsonb_path_ops, \(\(_jsonb -> 'b'::text\)\) jsonb_path_ops\) WITH \(fastupdate=off\)$/,
      );
      expect(indexes.has(`${ferretIndex('scratch', 'address.city_1')}_mr_gin`)).toBe(false);
      expect(indexes.get(`${ferretIndex('scratch', 'address.city_1_a_1')}_mr_gin`)).toMatch(
        /USING gin \(\(\(_jsonb -> 'a'::text\)\) jsonb_path_ops\) WITH \(fastupdate=off\)$/,
      );
      expect(indexes.has(`${ferretIndex('scratch', '_id_')}_mr_gin`)).toBe(true);
      expect([...indexes.keys()].filter((name) => name.endsWith('_mr_gin'))).toHaveLength(3);

      await scratch.drop();
      expect(sql(`SELECT count(*) FROM pg_indexes WHERE schemaname = '${schema}' AND indexname LIKE '%\\_mr\\_gin' AND tablename LIKE 'scratch%'`)).toEqual([
        '0',
      ]);
    },
  );
}
