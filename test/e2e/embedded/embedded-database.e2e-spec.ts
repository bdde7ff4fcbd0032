import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { EmbeddedDatabase, EmbeddedDatabaseError, EmbeddedDatabaseModule, startEmbeddedDatabase } from '../../../src/embedded/index.js';
import { cacheDir, FERRETDB_VERSION, onPath } from '../../../src/embedded/engine/choice.js';
import { canConnect } from '../../../src/embedded/engine/ports.js';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { chooseFerretDbBackend } from '../../../scripts/mongo-engine.js';
import { createPlatformApp, initPlatformApp } from '../../support/app.js';

@GeneratedResource()
@Schema()
class Memo {
  @Prop({ required: true }) text!: string;
}

/** Whether FerretDB can start here: a binary (FERRETDB_BIN, the cache) or Go to build one. MONGODB_URI does not matter. */
function ferretDbAvailable(): boolean {
  return Boolean(process.env.FERRETDB_BIN) || existsSync(join(cacheDir(), `ferretdb-${FERRETDB_VERSION}`)) || onPath('go');
}

/** The PIDs of the processes (FerretDB and its watchdog) whose command line names FerretDB's listen address. */
function processesListeningOn(port: number): string[] {
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(`--listen-addr=127.0.0.1:${port}`);
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function embeddedDatabaseSpec(): void {
  /**
   * Issue 42, item 1: a user's own app starts the embedded database itself (nestjs-model-routes/embedded),
   * in a folder it names, and stops it with the app. Real engine, on the backend of this run
   * (MODEL_ROUTES_ENGINE) and the platform of this run (MODEL_ROUTES_ADAPTER).
   */
  const available = ferretDbAvailable();
  const backend = available ? chooseFerretDbBackend().backend : 'sqlite';
  const test = available ? it : it.skip;
  let dataDir: string;
  let memoId: string;

  beforeAll(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'model-routes-embedded-')), 'data');
  });
  afterAll(() => {
    const root = join(dataDir, '..');
    // As root, a kept PostgreSQL cluster is a link to a folder the server user can reach: remove both.
    for (const entry of existsSync(dataDir) ? readdirSync(dataDir) : []) {
      const path = join(dataDir, entry);
      if (lstatSync(path).isSymbolicLink()) rmSync(readlinkSync(path), { recursive: true, force: true });
    }
    rmSync(root, { recursive: true, force: true });
  });

  async function boot(imports: unknown[]): Promise<INestApplication> {
    const moduleRef = await Test.createTestingModule({ imports: [...(imports as []), ModelRoutesModule.forRoot({ resources: [Memo] })] }).compile();
    const app = createPlatformApp(moduleRef, { logger: false });
    await initPlatformApp(app);
    return app;
  }

  test(`EmbeddedDatabaseModule.forRoot: starts in the folder named, logs one line, serves a create and a read, stops on app.close() [${backend}]`, async () => {
    const lines: string[] = [];
    const app = await boot([
      EmbeddedDatabaseModule.forRoot({ dataDir, backend, log: (line) => lines.push(line) }),
      MongooseModule.forRootAsync({ inject: [EmbeddedDatabase], useFactory: (db: EmbeddedDatabase) => ({ uri: db.uri, dbName: 'app' }) }),
    ]);
    const database = app.get(EmbeddedDatabase);
    const port = Number(new URL(database.uri).port);
    try {
      expect(database).toMatchObject({ backend, dataDir, embedded: true });
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(`^Embedded database for development and tests: FerretDB ${FERRETDB_VERSION} .*${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`),
        ),
      ]);
      expect(lines[0]).toContain(`mongodb://127.0.0.1:${port}/`);
      expect(lines[0]).toContain(dataDir);

      const created = await request(app.getHttpServer()).post('/memo').send({ text: 'kept' }).expect(201);
      memoId = created.body._id;
      await request(app.getHttpServer()).get(`/memo/${memoId}`).expect(200, { _id: memoId, text: 'kept' });
      expect(await canConnect(port)).toBe(true);
      expect(processesListeningOn(port).length).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
    expect(await canConnect(port)).toBe(false);
    expect(processesListeningOn(port)).toEqual([]);
    expect(readdirSync(dataDir)).not.toContain('in-use.json');
  });

  test(`EmbeddedDatabaseModule.forTesting on the same folder: the data of the first start is still there, and app.close() stops it [${backend}]`, async () => {
    const app = await boot([EmbeddedDatabaseModule.forTesting({ dataDir, backend, dbName: 'app' })]);
    const port = Number(new URL(app.get(EmbeddedDatabase).uri).port);
    try {
      await request(app.getHttpServer()).get(`/memo/${memoId}`).expect(200, { _id: memoId, text: 'kept' });
    } finally {
      await app.close();
    }
    expect(await canConnect(port)).toBe(false);
    expect(processesListeningOn(port)).toEqual([]);
  });

  test(`startEmbeddedDatabase() is refused in NODE_ENV=production, unless allowInProduction [${backend}]`, async () => {
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const refused = startEmbeddedDatabase({ backend, log: false });
      await expect(refused).rejects.toBeInstanceOf(EmbeddedDatabaseError);
      await expect(refused).rejects.toMatchObject({ reason: 'production', message: expect.stringContaining('allowInProduction: true') });
      // With an external database (the uri option), nothing starts, so nothing is refused.
      await expect(startEmbeddedDatabase({ uri: 'mongodb://db.example:27017/', log: false })).resolves.toMatchObject({ embedded: false });

      const allowed = await startEmbeddedDatabase({ backend, allowInProduction: true, log: false });
      const port = Number(new URL(allowed.uri).port);
      expect(await canConnect(port)).toBe(true);
      await allowed.stop();
      expect(await canConnect(port)).toBe(false);
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
  });

  if (!available) it.skip('(skipped: no FerretDB binary and no Go to build one)', () => undefined);
}
