import { Company, Entrepreneur } from '../../fixtures/models.js';
import { MongooseModule } from '@nestjs/mongoose';
import { ModelRoutesModule } from '../../../src/index.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { expectError } from '../../support/expect-error.js';
import { pollUntil } from '../../support/poll.js';
import { startStallingProxy } from '../../support/tcp-proxy.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function outageSpec(): void {
  const engine = useEngine();
  let t: TestApp | undefined;
  afterAll(() => t?.close());

  // Stopping the database needs an engine this process started (FerretDB); a server given by
  // MONGODB_URI is shared and must not be stopped, so there this test cannot run.
  const itStopsTheEngine = process.env.MONGODB_URI ? it.skip : it;

  itStopsTheEngine(
    'answers 503 while the database is down, then recovers without restarting the app',
    async () => {
      t = await createTestApp(engine, { resources: [Entrepreneur, Company] }, { serverSelectionTimeoutMS: 1000, heartbeatFrequencyMS: 500 });
      const created = await t.http().post('/company').send({ niceName: 'Acme', employees: 3 }).expect(201);

      await engine.get().suspend!();
      try {
        await expectUnavailable(created.body._id);
      } finally {
        await engine.get().resume!();
      }
      expect(
        (
          await pollUntil(
            () => t!.http().get('/companies'),
            (response) => response.status === 200,
          )
        ).status,
      ).toBe(200);
      const after = await t.http().get(`/company/${created.body._id}`).expect(200);
      expect(after.body).toMatchObject({ niceName: 'Acme', employees: 3 });
    },
    60000,
  );

  async function expectUnavailable(id: string): Promise<void> {
    const requests = [
      () => t!.http().get(`/company/${id}`),
      () => t!.http().get('/companies'),
      () =>
        t!
          .http()
          .post('/companies')
          .send({ query: { niceName: 'Acme' } }),
      () => t!.http().post('/company').send({ niceName: 'Globex' }),
      () => t!.http().put(`/company/${id}`).send({ employees: 4 }),
      () => t!.http().delete(`/company/${id}`),
    ];
    for (const request of requests) {
      const response = await request();
      expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
      expect(response.body.message).toBe('The database is unavailable; try again later');
    }
  }

  /**
   * A server that stops answering on open connections (a frozen process, a partition) is never
   * refused: without a socket timeout the driver would wait on it for good, as `maxTimeMS` is
   * enforced by the silent server itself. With `socketTimeoutMS` and `connectTimeoutMS` (what "Running
   * in production" recommends: a retried read opens a new connection, whose handshake would otherwise
   * wait 30 s), every route answers 503 once they have elapsed, and serves again when the server does.
   */
  itStopsTheEngine(
    'answers 503 within socketTimeoutMS when the server stops answering on open connections, then recovers',
    async () => {
      const SOCKET_TIMEOUT_MS = 1500;
      const proxy = await startStallingProxy(engine.get().uri);
      const { uri } = proxy;
      try {
        // The database is made ready without the proxy: its collections and indexes, built at boot, took
        // longer than the socket timeout on a loaded machine (SQLite backend), and the boot failed with
        // the socket's MongoNetworkTimeoutError (5 runs of 15 beside a busy CPU). The app under test
        // then boots on it through the proxy, building nothing.
        const dbName = engine.dbName('stalled server');
        const ready = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }), dbName });
        const id = (await ready.http().post('/company').send({ niceName: 'Acme' }).expect(201)).body._id;
        await ready.close({ keepDatabase: true });
        const logger = new RecordingLogger();
        t = await bootTestApp(engine, {
          modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
          appOptions: { logger },
          dbName,
          imports: () => [
            MongooseModule.forRoot(uri, {
              dbName,
              autoIndex: false,
              autoCreate: false,
              socketTimeoutMS: SOCKET_TIMEOUT_MS,
              connectTimeoutMS: 1000,
              serverSelectionTimeoutMS: 1000,
              heartbeatFrequencyMS: 500,
            }),
          ],
          mongoose: false,
        });
        // Opens the connection the stall then holds.
        await t.http().get(`/company/${id}`).expect(200);
        proxy.stall();
        for (const request of [
          () => t!.http().get(`/company/${id}`),
          () => t!.http().get('/companies'),
          () => t!.http().put(`/company/${id}`).send({ employees: 4 }),
        ]) {
          const started = Date.now();
          const response = await request();
          const elapsed = Date.now() - started;
          // Once (in CI) one of these was a 500 MR_INTERNAL: the app's log of it, with its cause, shows which error it
          // was. The driver's monitor times out first (within heartbeatFrequencyMS + connectTimeoutMS) and interrupts the
          // request in flight: a read is retried, a write is not (see the next test).
          const logged = logger.errors.splice(0);
          expect({ status: response.status, logged: response.status === 503 ? [] : logged }).toEqual({ status: 503, logged: [] });
          expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
          // A bound, not a measure: the socket timeout, a retried read's connection timeout (1000 ms), and a margin for a loaded machine.
          expect(elapsed).toBeLessThan(SOCKET_TIMEOUT_MS + 1000 + 3000);
        }
        proxy.resume();
        expect(
          (
            await pollUntil(
              () => t!.http().get(`/company/${id}`),
              (response) => response.status === 200,
            )
          ).status,
        ).toBe(200);
      } finally {
        await t?.close();
        t = undefined;
        await proxy.close();
      }
    },
    60000,
  );

  /**
   * The driver's monitor checks the server every `heartbeatFrequencyMS`, waiting `connectTimeoutMS`
   * for an answer; when a check times out it clears the pool and interrupts the operations in
   * flight on it (a `PoolClearedOnNetworkError`), whatever their own `socketTimeoutMS`. A read is
   * retried (and then fails server selection: a 503), a write on a standalone server is not: the
   * interruption itself reaches the route. (Seen once in CI as a 500 MR_INTERNAL in the test above,
   * when the monitor's check timed out before the request's socket did; here no socket timeout is
   * set, so the monitor is what ends the request, every time.)
   */
  itStopsTheEngine(
    "answers 503 to a write in flight when the driver's monitor finds the server silent and interrupts it",
    async () => {
      const proxy = await startStallingProxy(engine.get().uri);
      try {
        const logger = new RecordingLogger();
        t = await bootTestApp(engine, {
          modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
          appOptions: { logger },
          imports: ({ dbName }) => [
            MongooseModule.forRoot(proxy.uri, {
              dbName,
              socketTimeoutMS: 0,
              connectTimeoutMS: 1000,
              serverSelectionTimeoutMS: 1000,
              heartbeatFrequencyMS: 500,
            }),
          ],
          mongoose: false,
        });
        const id = (await t.http().post('/company').send({ niceName: 'Acme' }).expect(201)).body._id;
        proxy.stall();
        const response = await t.http().put(`/company/${id}`).send({ employees: 4 });
        const logged = logger.errors.splice(0);
        expect({ status: response.status, logged: response.status === 503 ? [] : logged }).toEqual({ status: 503, logged: [] });
        expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
        proxy.resume();
        expect(
          (
            await pollUntil(
              () => t!.http().get(`/company/${id}`),
              (answer) => answer.status === 200,
            )
          ).status,
        ).toBe(200);
      } finally {
        await t?.close();
        t = undefined;
        await proxy.close();
      }
    },
    60000,
  );
}
