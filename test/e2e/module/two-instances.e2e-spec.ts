/**
 * Issue 13 item 5: two processes of one app on one database share nothing but the database. Each
 * instance is a Node process of its own (test/fixtures/instance-app, compiled into dist-test/),
 * on the adapter of this run (MODEL_ROUTES_ADAPTER); what one writes, the other reads at once;
 * a unique index and an If-Match hold across them.
 */
import mongoose, { type Connection } from 'mongoose';
import type request from 'supertest';
import type { Response } from 'supertest';
import { ModelRoutesHealthModule, ModelRoutesModule } from '../../../src/index.js';
import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp, contractChecked, testAdapter } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { buildInstanceApp, startInstance, type AppInstance } from '../../support/instance-process.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function twoInstancesSpec(): void {
  const engine = useEngine();
  let a: AppInstance;
  let b: AppInstance;
  let connection: Connection;
  /** supertest on each instance; each response of a generated route is checked against the OpenAPI document of their modules. */
  const http = new Map<AppInstance, () => ReturnType<typeof request>>();
  const via = (instance: AppInstance) => http.get(instance)!();

  beforeAll(async () => {
    const { uri } = engine.get();
    const dbName = engine.dbName('two_instances');
    const main = await buildInstanceApp();
    // Registered before they start: the instances stop before the engine, even if one fails to start.
    const instances: AppInstance[] = [];
    engine.beforeStop(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await connection?.dropDatabase().catch(() => undefined);
      await connection?.close();
    });
    connection = await mongoose.createConnection(uri, { dbName }).asPromise();
    const started = await Promise.allSettled([
      startInstance(main, { MONGODB_URI: uri, DB_NAME: dbName }),
      startInstance(main, { MONGODB_URI: uri, DB_NAME: dbName }),
    ]);
    for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    [a, b] = instances as [AppInstance, AppInstance];
    // The instances' modules (test/fixtures/instance-app/main.ts) booted here too, for their route table and OpenAPI document.
    const documented = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company, Account] }),
      imports: [ModelRoutesHealthModule.forRoot()],
    });
    for (const instance of instances) http.set(instance, contractChecked(documented.app, { target: instance.url }).http);
    // Two processes: two different ports, each answering for itself.
    expect(a.url).not.toBe(b.url);
    expect([a.adapter, b.adapter]).toEqual([testAdapter(), testAdapter()]);
    await Promise.all([via(a).get('/ready').expect(200), via(b).get('/ready').expect(200)]);
  }, 90000);

  describe('two app processes on one database', () => {
    it('a document created through A is read through B at once (one, and a search)', async () => {
      const created = (await via(a).post('/company').send({ niceName: 'Across', employees: 3 }).expect(201)).body;
      expect((await via(b).get(`/company/${created._id}`).expect(200)).body).toEqual(created);
      const search = (await via(b).get('/companies?niceName=Across').expect(200)).body;
      expect(search.result).toEqual([created]);
      const post = (
        await via(b)
          .post('/companies')
          .send({ query: { employees: 3, niceName: 'Across' } })
          .expect(200)
      ).body;
      expect(post.result).toEqual([created]);
    });

    it('an update through B is read through A at once', async () => {
      const created = (await via(a).post('/company').send({ niceName: 'Updated', employees: 1 }).expect(201)).body;
      const updated = (await via(b).put(`/company/${created._id}`).send({ employees: 7, location: 'Lyon' }).expect(200)).body;
      expect(updated).toMatchObject({ _id: created._id, niceName: 'Updated', employees: 7, location: 'Lyon' });
      expect((await via(a).get(`/company/${created._id}`).expect(200)).body).toEqual(updated);
      expect((await via(a).get('/companies?niceName=Updated&employees=7').expect(200)).body.result).toEqual([updated]);
    });

    it('20 concurrent creates of one unique value, split across both: one 201, nineteen 409 MR_DUPLICATE_KEY, one document', async () => {
      const email = `race-${Date.now()}@example.com`;
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          via(index % 2 ? b : a)
            .post('/account')
            .send({ email, credits: index }),
        ),
      );
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([201, ...Array<number>(19).fill(409)]);
      for (const response of responses.filter((candidate) => candidate.status === 409)) {
        expectError(response, 409, 'MR_DUPLICATE_KEY');
      }
      const winner = responses.find((response) => response.status === 201)!.body;
      expect(await connection.collection('accounts').countDocuments({ email })).toBe(1);
      // Both instances see the one that was stored.
      for (const instance of [a, b]) {
        expect(
          (
            await via(instance)
              .get(`/accounts?email=${encodeURIComponent(email)}`)
              .expect(200)
          ).body.result,
        ).toEqual([winner]);
      }
    });

    it('If-Match across instances: the ETag read through A lets B write once; A with that old ETag gets 412', async () => {
      const created = (await via(a).post('/company').send({ niceName: 'Tagged', employees: 1 }).expect(201)).body;
      const read = await via(a).get(`/company/${created._id}`).expect(200);
      const etag = etagOf(read);

      const written = await via(b).put(`/company/${created._id}`).set('If-Match', etag).send({ employees: 2 }).expect(200);
      const next = etagOf(written);
      expect(next).not.toBe(etag);
      expect(written.body.employees).toBe(2);

      const refused = await via(a).put(`/company/${created._id}`).set('If-Match', etag).send({ employees: 3 });
      expectError(refused, 412, 'MR_PRECONDITION_FAILED');
      expect(refused.headers.etag).toBe(next);
      const now = await via(a).get(`/company/${created._id}`).expect(200);
      expect({ employees: now.body.employees, etag: now.headers.etag }).toEqual({ employees: 2, etag: next });
    });
  });

  function etagOf(response: Response): string {
    const etag = response.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);
    return etag as string;
  }
}
