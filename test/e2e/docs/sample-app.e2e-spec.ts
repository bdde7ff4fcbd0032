import { lstatSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import type request from 'supertest';
import { AppModule } from '../../../sample-app/app.module.js';
import { configureSampleApp } from '../../../sample-app/app.setup.js';
import { DataDirInUseError, startEngine } from '../../../scripts/mongo-engine.js';
import { useEngine } from '../../support/engine.js';
import { contractChecked, createPlatformApp, initPlatformApp } from '../../support/app.js';
import { dimensionsOf, makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function sampleAppSpec(): void {
  /**
   * The sample app itself (not a fixture app): what a newcomer sees after `npm run sample`, the
   * figures of its own endpoint, and its HTTP configuration.
   */
  const engine = useEngine();

  interface SampleApp {
    app: INestApplication;
    /** supertest on the app; each response of a generated route is checked against the OpenAPI document. */
    http: () => ReturnType<typeof request>;
    connection: Connection;
    /** Closes the app; `keep` leaves its database for a next boot. */
    close(options?: { keep?: boolean }): Promise<void>;
  }

  /** Boots the sample's AppModule on `dbName` as main.ts does, with its seed (unless SAMPLE_SEED=0). */
  async function bootSample(dbName: string): Promise<SampleApp> {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forDatabase(engine.get().uri, dbName)] }).compile();
    const app = configureSampleApp(createPlatformApp(moduleRef, { logger: false, routeConflictPolicy: { duplicate: 'error' } }));
    await initPlatformApp(app);
    const connection = app.get<Connection>(getConnectionToken());
    let closed: Promise<void> | undefined;
    const close = ({ keep = false } = {}) =>
      (closed ??= (async () => {
        if (!keep) await connection.dropDatabase().catch(() => undefined);
        await app.close();
      })());
    engine.beforeStop(close);
    return { app, http: contractChecked(app).http, connection, close };
  }

  /** Runs `body` with SAMPLE_SEED set to `value`, then restores it. */
  async function withSeedSetting<T>(value: string, body: () => Promise<T>): Promise<T> {
    const previous = process.env.SAMPLE_SEED;
    process.env.SAMPLE_SEED = value;
    try {
      return await body();
    } finally {
      if (previous === undefined) delete process.env.SAMPLE_SEED;
      else process.env.SAMPLE_SEED = previous;
    }
  }

  describe('the seed', () => {
    it('fills an empty database with one user and two companies she owns, once', async () => {
      const dbName = engine.dbName('sample_seed');
      const first = await bootSample(dbName);
      const users = await first.http().get('/users').expect(200);
      expect(users.body.status).toMatchObject({ count: 1, match_count: 1 });
      const [ada] = users.body.result;
      expect(ada).toEqual({ _id: expect.any(String), niceName: 'Ada Lovelace', birth: '1815-12-10T00:00:00.000Z' });
      // The first curl of docs/sample-app.md.
      const companies = await first.http().get('/companies?sort=niceName').expect(200);
      expect(companies.body.status).toMatchObject({ count: 2, match_count: 2 });
      expect(companies.body.result).toEqual([
        { _id: expect.any(String), niceName: 'Analytical Engines', owner: ada._id, employees: 40, location: 'London' },
        { _id: expect.any(String), niceName: 'Difference Works', owner: ada._id, employees: 12 },
      ]);
      await first.close({ keep: true });

      const second = await bootSample(dbName);
      expect((await second.http().get('/users').expect(200)).body.status.count).toBe(1);
      expect((await second.http().get('/companies').expect(200)).body.status.count).toBe(2);
      await second.close();
    });

    it('leaves a database with users alone, even when they own no company', async () => {
      const dbName = engine.dbName('sample_seed_users');
      const first = await withSeedSetting('0', () => bootSample(dbName));
      await first.http().post('/user').send({ niceName: 'Grace Hopper' }).expect(201);
      await first.close({ keep: true });

      const second = await bootSample(dbName);
      const users = await second.http().get('/users').expect(200);
      expect(users.body.result.map((user: { niceName: string }) => user.niceName)).toEqual(['Grace Hopper']);
      expect((await second.http().get('/companies').expect(200)).body.status.count).toBe(0);
      await second.close();
    });

    it('is off with SAMPLE_SEED=0', async () => {
      const sample = await withSeedSetting('0', () => bootSample(engine.dbName('sample_no_seed')));
      expect((await sample.http().get('/users').expect(200)).body.status.count).toBe(0);
      expect((await sample.http().get('/companies').expect(200)).body.status.count).toBe(0);
      await sample.close();
    });
  });

  describe('GET /company/stats', () => {
    let sample: SampleApp;
    beforeAll(async () => {
      sample = await bootSample(engine.dbName('sample_stats'));
    });
    afterAll(() => sample?.close());

    it('counts the seeded companies and their employees', async () => {
      expect((await sample.http().get('/company/stats').expect(200)).body).toEqual({ companies: 2, employees: 52 });
    });

    it('answers zeros when there are no companies', async () => {
      await sample.connection.model('Company').deleteMany({});
      expect((await sample.http().get('/company/stats').expect(200)).body).toEqual({ companies: 0, employees: 0 });
    });

    it('adds up every company and every employee (40 + 45 + 5), ignoring companies without a figure', async () => {
      await sample.connection.model('Company').deleteMany({});
      for (const employees of [40, 45, 5]) {
        await sample
          .http()
          .post('/company')
          .send({ niceName: `Company of ${employees}`, employees })
          .expect(201);
      }
      expect((await sample.http().get('/company/stats').expect(200)).body).toEqual({ companies: 3, employees: 90 });
      await sample.http().post('/company').send({ niceName: 'Not counted yet' }).expect(201);
      expect((await sample.http().get('/company/stats').expect(200)).body).toEqual({ companies: 4, employees: 90 });
    });
  });

  describe('a user who owns companies', () => {
    let sample: SampleApp;
    beforeAll(async () => {
      sample = await bootSample(engine.dbName('sample_restrict'));
    });
    afterAll(() => sample?.close());

    it("cannot be deleted while she owns them (Company.owner: onDelete 'restrict'), and can be once she owns none", async () => {
      const [ada] = (await sample.http().get('/users').expect(200)).body.result;
      const refused = await sample.http().delete(`/user/${ada._id}`).expect(409);
      expect(refused.body).toMatchObject({ code: 'MR_REFERENCED', details: [{ path: 'Company.owner', message: '2 Company documents reference it' }] });
      await sample.http().get(`/user/${ada._id}`).expect(200);
      await sample.connection.model('Company').deleteMany({});
      await sample.http().delete(`/user/${ada._id}`).expect(200);
    });
  });

  describe("a company's logo and a user's photos (docs/files.md)", () => {
    let sample: SampleApp;
    beforeAll(async () => {
      sample = await bootSample(engine.dbName('sample_files'));
    });
    afterAll(() => sample?.close());

    it('uploads a logo with the API key, serves it and a resized copy, deletes it', async () => {
      const [company] = (await sample.http().get('/companies').expect(200)).body.result;
      const logo = await makeImage('png', { width: 300, height: 200 });
      expect((await sample.http().put(`/company/${company._id}/logo`).set('Content-Type', 'image/png').send(logo)).status).toBe(401);
      const uploaded = await sample.http().put(`/company/${company._id}/logo`).set('x-api-key', 'sample-key').attach('file', logo, 'acme.png').expect(200);
      expect(uploaded.body.logo).toMatchObject({ name: 'acme.png', contentType: 'image/png', size: logo.length });
      const download = await sample.http().get(`/company/${company._id}/logo`).buffer(true).expect(200);
      expect(download.headers['content-type']).toBe('image/png');
      const resized = await sample.http().get(`/company/${company._id}/logo?w=200&h=200&format=webp`).buffer(true).expect(200);
      expect(await dimensionsOf(resized.body as Buffer)).toEqual({ width: 200, height: 200, format: 'webp' });
      await sample.http().delete(`/company/${company._id}/logo`).set('x-api-key', 'sample-key').expect(200);
      await sample.http().get(`/company/${company._id}/logo`).expect(404);
    });

    it("adds photos to a user's gallery, serves one, deletes one", async () => {
      const [ada] = (await sample.http().get('/users').expect(200)).body.result;
      const photo = await makeImage('jpeg');
      const added = await sample.http().post(`/user/${ada._id}/photos`).attach('file', photo, 'beach.jpg').expect(201);
      const [stored] = added.body.photos;
      expect(added.headers.location).toBe(`/user/${ada._id}/photos/${stored._id}`);
      const download = await sample.http().get(added.headers.location).buffer(true).expect(200);
      expect(Buffer.compare(download.body as Buffer, photo)).toBe(0);
      expect((await sample.http().delete(added.headers.location).expect(200)).body.photos).toEqual([]);
    });
  });

  describe('X-Powered-By', () => {
    let sample: SampleApp;
    beforeAll(async () => {
      sample = await bootSample(engine.dbName('sample_headers'));
    });
    afterAll(() => sample?.close());

    it.each([
      ['a generated route', () => sample.http().get('/companies'), 200],
      ['the own endpoint', () => sample.http().get('/company/stats'), 200],
      ['a refused request', () => sample.http().get('/company/not-an-id'), 400],
      ['malformed JSON', () => sample.http().post('/company').set('content-type', 'application/json').send('{"niceName":'), 400],
      ['an unknown route', () => sample.http().get('/nowhere'), 404],
    ])('is not sent on %s', async (_label, send, status) => {
      const response = await send();
      expect(response.status).toBe(status);
      expect(response.headers).not.toHaveProperty('x-powered-by');
    });
  });

  describe('a second sample on the data folder of a running one', () => {
    const external = Boolean(process.env.MONGODB_URI);
    let dataDir: string;
    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'model-routes-sample-data-'));
    });
    afterAll(() => {
      // As root, a kept PostgreSQL cluster is a link to a folder the server user can reach: remove both.
      for (const entry of readdirSync(dataDir)) {
        const path = join(dataDir, entry);
        if (lstatSync(path).isSymbolicLink()) rmSync(readlinkSync(path), { recursive: true, force: true });
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    (external ? it.skip : it)('is refused before its engine starts, with the PID of the first; once the first stopped, it starts', async () => {
      // (Skipped with MONGODB_URI: no embedded engine, so no data folder to share.)
      const first = await startEngine({ dataDir, owner: 'the sample app on http://127.0.0.1:3000', log: () => undefined });
      try {
        const second = startEngine({ dataDir, log: () => undefined });
        await expect(second).rejects.toBeInstanceOf(DataDirInUseError);
        await expect(second).rejects.toMatchObject({ dataDir, holder: { pid: process.pid, owner: 'the sample app on http://127.0.0.1:3000' } });
      } finally {
        await first.stop();
      }
      const again = await startEngine({ dataDir, log: () => undefined });
      await again.stop();
    });
  });
}
