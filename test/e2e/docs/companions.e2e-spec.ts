import { readFileSync } from 'node:fs';
import mongoose, { type Connection } from 'mongoose';
import request from 'supertest';
import { ModelRoutesModule } from '../../../src/index.js';
import { enableFrontEndCors, EXPOSED_HEADERS, FRONT_END_ORIGIN, Saucer } from '../../fixtures/companions-app.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { buildInstanceApp, startInstance, type AppInstance } from '../../support/instance-process.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function companionsSpec(): void {
  /** The companions of docs/companions.md (test/fixtures/companions-app.ts), through HTTP. */

  const engine = useEngine();

  /** A 429 of the throttler, in the library's error shape, with the Retry-After a client waits for. */
  function expectTooManyRequests(response: { status: number; body: unknown; headers: Record<string, string> }): void {
    expectError(response as never, 429, 'MR_HTTP_ERROR');
    expect(response.body).toEqual({ statusCode: 429, error: 'Too Many Requests', code: 'MR_HTTP_ERROR', message: 'ThrottlerException: Too Many Requests' });
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  }

  /** One app of test/fixtures/throttled-app, in a process of its own, on a fresh database. */
  function useThrottledApp(throttling: 'global' | 'route'): { http: () => ReturnType<typeof request>; count(model: string): Promise<number> } {
    let instance: AppInstance | undefined;
    let connection: Connection | undefined;
    beforeAll(async () => {
      const { uri } = engine.get();
      const dbName = engine.dbName(`companions_${throttling}`);
      instance = await startInstance(await buildInstanceApp('throttled-app'), { MONGODB_URI: uri, DB_NAME: dbName, THROTTLING: throttling });
      connection = await mongoose.createConnection(uri, { dbName }).asPromise();
    }, 120_000);
    afterAll(async () => {
      await instance?.stop();
      await connection?.dropDatabase().catch(() => undefined);
      await connection?.close();
    });
    return { http: () => request(instance!.url), count: (model) => connection!.collection(model).countDocuments() };
  }

  describe('rate limiting with @nestjs/throttler, global (APP_GUARD)', () => {
    const t = useThrottledApp('global');

    it('the 6th GET /kettles of a minute answers 429 in the error shape, with Retry-After', async () => {
      for (let i = 0; i < 5; i++) await t.http().get('/kettles').expect(200);
      expectTooManyRequests(await t.http().get('/kettles'));
    });

    it('a @SkipThrottle() endpoint of the extended controller is never limited', async () => {
      for (let i = 0; i < 8; i++) expect((await t.http().get('/kettle/count').expect(200)).body).toEqual({ kettles: 0 });
    });

    it('a @Throttle() endpoint of the extended controller has its own limit (the 3rd GET /kettle/report answers 429)', async () => {
      for (let i = 0; i < 2; i++) await t.http().get('/kettle/report').expect(200);
      expectTooManyRequests(await t.http().get('/kettle/report'));
    });

    it('a refused write changes nothing (POST /kettle past the limit)', async () => {
      for (let i = 0; i < 5; i++)
        await t
          .http()
          .post('/kettle')
          .send({ name: `k${i}` })
          .expect(201);
      expectTooManyRequests(await t.http().post('/kettle').send({ name: 'one too many' }));
      expect(await t.count('kettles')).toBe(5);
    });
  });

  describe('rate limiting with @nestjs/throttler, per generated route (route options)', () => {
    const t = useThrottledApp('route');

    it('the 4th POST /teapot answers 429 and stores nothing; GET /teapots is not limited', async () => {
      for (let i = 0; i < 3; i++)
        await t
          .http()
          .post('/teapot')
          .send({ name: `t${i}` })
          .expect(201);
      expectTooManyRequests(await t.http().post('/teapot').send({ name: 'one too many' }));
      expect(await t.count('teapots')).toBe(3);
      for (let i = 0; i < 6; i++) expect((await t.http().get('/teapots').expect(200)).body.result).toHaveLength(3);
    });
  });

  describe('caching headers and CORS', () => {
    let t: TestApp;
    let saucer: { _id: string };
    beforeAll(async () => {
      t = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Saucer] }), configure: enableFrontEndCors });
      saucer = (await t.http().post('/saucer').send({ name: 'blue' }).expect(201)).body;
    });
    afterAll(() => t?.close());

    it('GET /saucer/:id carries the Cache-Control of its route options, and its 304 still answers with it', async () => {
      const first = await t.http().get(`/saucer/${saucer._id}`).expect(200);
      expect(first.headers['cache-control']).toBe('private, max-age=60, must-revalidate');
      expect(first.headers.etag).toBeDefined();
      const again = await t.http().get(`/saucer/${saucer._id}`).set('If-None-Match', first.headers.etag).expect(304);
      expect(again.headers['cache-control']).toBe('private, max-age=60, must-revalidate');
      expect(again.headers.etag).toBe(first.headers.etag);
    });

    it('GET /saucers carries it too; a write route does not', async () => {
      expect((await t.http().get('/saucers').expect(200)).headers['cache-control']).toBe('private, max-age=60, must-revalidate');
      expect((await t.http().patch(`/saucer/${saucer._id}`).send({ name: 'blue' }).expect(200)).headers['cache-control']).toBeUndefined();
    });

    it.each([
      ['/saucer', 'POST'],
      ['/saucer/:id', 'DELETE'],
      ['/saucer/:id', 'PATCH'],
    ])('a preflight OPTIONS %s for %s is answered by CORS (204), not by a 405', async (path, method) => {
      const response = await t
        .http()
        .options(path.replace(':id', saucer._id))
        .set('Origin', FRONT_END_ORIGIN)
        .set('Access-Control-Request-Method', method)
        .set('Access-Control-Request-Headers', 'content-type,if-match');
      expect(response.status).toBe(204);
      expect(response.headers['access-control-allow-origin']).toBe(FRONT_END_ORIGIN);
      expect(response.headers['access-control-allow-methods']).toContain(method);
      expect(response.headers['access-control-allow-headers']?.toLowerCase()).toContain('if-match');
    });

    it('a cross-origin POST and GET expose Location and ETag to the front end', async () => {
      const created = await t.http().post('/saucer').set('Origin', FRONT_END_ORIGIN).send({ name: 'green' }).expect(201);
      expect(created.headers['access-control-allow-origin']).toBe(FRONT_END_ORIGIN);
      // Express's cors joins the list with ',', @fastify/cors with ', '.
      expect(created.headers['access-control-expose-headers'].split(/, ?/)).toEqual(EXPOSED_HEADERS);
      expect(created.headers.location).toBeDefined();
      const read = await t.http().get(`/saucer/${created.body._id}`).set('Origin', FRONT_END_ORIGIN).expect(200);
      expect(read.headers['access-control-allow-origin']).toBe(FRONT_END_ORIGIN);
      expect(read.headers['access-control-expose-headers']).toContain('ETag');
    });

    it('an error answer (405 with Allow) carries the CORS headers too, so the front end can read it', async () => {
      const response = await t.http().put('/saucer').set('Origin', FRONT_END_ORIGIN).send({ name: 'x' });
      expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
      expect(response.headers['access-control-allow-origin']).toBe(FRONT_END_ORIGIN);
      expect(response.headers.allow).toBeDefined();
    });
  });

  describe('docs/companions.md', () => {
    it.each(['test/fixtures/throttled-app/throttling.ts', 'test/fixtures/companions-app.ts'])('shows %s whole, as the tests run it', (file) => {
      const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
      expect(read('docs/companions.md')).toContain(`\`\`\`ts\n${read(file).trim()}\n\`\`\``);
    });
  });
}
