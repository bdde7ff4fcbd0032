import SwaggerParser from '@apidevtools/swagger-parser';
import { DocumentBuilder } from '@nestjs/swagger';
import type { Response } from 'supertest';
import { Injectable, Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import {
  ModelRoutesConfigError,
  ModelRoutesHealthModule,
  ModelRoutesModule,
  type ModelRoutesHealthOptions,
  type ModelRoutesHealthSettings,
  type ModelRoutesHealthSettingsFactory,
} from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { OpenApiContract } from '../../support/openapi-contract.js';
import { pollUntil } from '../../support/poll.js';
import { startStallingProxy, type StallingProxy } from '../../support/tcp-proxy.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function healthSpec(): void {
  /** ModelRoutesHealthModule: liveness and readiness routes, opt-in, in the library's error shape. */

  const engine = useEngine();

  /** The fixture resources with the health routes of `options`; the default connection unless `connectionName`. */
  function bootWithHealth(
    options: ModelRoutesHealthOptions = {},
    setup: { connectionName?: string; globalErrorFilter?: boolean; globalPrefix?: string; serverSelectionTimeoutMS?: number } = {},
  ): Promise<TestApp> {
    const { connectionName, globalErrorFilter, globalPrefix, serverSelectionTimeoutMS } = setup;
    return bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company], connectionName, globalErrorFilter }),
      imports: [ModelRoutesHealthModule.forRoot({ connectionName, ...options })],
      connectionName,
      globalPrefix,
      mongoose: serverSelectionTimeoutMS ? { serverSelectionTimeoutMS } : {},
    });
  }

  function expectReady(response: Response): void {
    expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { status: 'ok', database: { pingMs: expect.any(Number) } } });
    expect(response.headers['cache-control']).toBe('no-store');
  }

  describe('opted in: ModelRoutesHealthModule.forRoot()', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await bootWithHealth();
    });
    afterAll(() => t.close());

    it('GET /health answers 200 { status: "ok" }, not cached', async () => {
      const response = await t.http().get('/health').expect(200);
      expect(response.body).toEqual({ status: 'ok' });
      expect(response.headers['cache-control']).toBe('no-store');
    });

    it('GET /ready answers 200 with the time of the ping when the database answers', async () => {
      expectReady(await t.http().get('/ready'));
    });

    it('leaves the generated routes as they were', async () => {
      await t.http().post('/company').send({ niceName: 'Acme' }).expect(201);
      expect((await t.http().get('/companies').expect(200)).body.status.match_count).toBe(1);
    });

    it('documents both routes in the OpenAPI document, the 503 in the error shape', async () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
      await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
      expect(document.paths['/health']?.get).toMatchObject({ operationId: 'health', tags: ['Health'] });
      expect(Object.keys(document.paths['/health']!.get!.responses)).toEqual(['200']);
      expect(document.paths['/ready']?.get).toMatchObject({ operationId: 'ready', tags: ['Health'] });
      expect(Object.keys(document.paths['/ready']!.get!.responses).sort()).toEqual(['200', '503']);
      const contract = new OpenApiContract(document);
      contract.check('GET', '/health', 200, (await t.http().get('/health')).body);
      contract.check('GET', '/ready', 200, (await t.http().get('/ready')).body);
      contract.check('GET', '/ready', 503, {
        statusCode: 503,
        error: 'Service Unavailable',
        code: 'MR_DATABASE_UNAVAILABLE',
        message: 'The database did not answer a ping within 1000 ms',
      });
    });
  });

  // Stopping the database needs an engine this process started (FerretDB); a server given by
  // MONGODB_URI is shared and must not be stopped, so there this test cannot run.
  const itStopsTheEngine = process.env.MONGODB_URI ? it.skip : it;

  describe('readiness while the database is down', () => {
    let t: TestApp | undefined;
    afterAll(() => t?.close());

    itStopsTheEngine(
      'GET /ready answers 503 MR_DATABASE_UNAVAILABLE within readyTimeoutMS, /health stays 200, and /ready recovers',
      async () => {
        const readyTimeoutMS = 1000;
        // The driver's own server selection waits 30 s (its default): the bound is the module's.
        t = await bootWithHealth({ readyTimeoutMS }, { serverSelectionTimeoutMS: 30000 });
        expectReady(await t.http().get('/ready'));

        await engine.get().suspend!();
        try {
          for (let attempt = 0; attempt < 3; attempt++) {
            const started = Date.now();
            const response = await t.http().get('/ready');
            const elapsed = Date.now() - started;
            expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
            expect(response.body.message).toMatch(/^The database (did not answer a ping|is not connected)/);
            expect(elapsed).toBeLessThan(readyTimeoutMS + 2000);
            const health = await t.http().get('/health');
            expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: { status: 'ok' } });
          }
        } finally {
          await engine.get().resume!();
        }
        expectReady(
          await pollUntil(
            () => t!.http().get('/ready'),
            (response) => response.status === 200,
          ),
        );
      },
      60000,
    );
  });

  // The proxy forwards to the one host of an engine this process started; a MONGODB_URI may name
  // a replica set or an SRV record, which one TCP proxy cannot stand in front of.
  const itOnLocalEngine = process.env.MONGODB_URI ? it.skip : it;

  describe('readiness while the database does not answer (connections open, no reply)', () => {
    let t: TestApp | undefined;
    let proxy: StallingProxy | undefined;
    afterAll(async () => {
      proxy?.resume();
      await t?.close();
      await proxy?.close();
    });

    itOnLocalEngine(
      "GET /ready answers 503 after readyTimeoutMS, not after the driver's 30 s, and recovers",
      async () => {
        const readyTimeoutMS = 1000;
        proxy = await startStallingProxy(engine.get().uri);
        const { uri } = proxy;
        t = await bootTestApp(engine, {
          modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
          imports: ({ dbName }) => [
            MongooseModule.forRoot(uri, { dbName, serverSelectionTimeoutMS: 30000 }),
            ModelRoutesHealthModule.forRoot({ readyTimeoutMS }),
          ],
          mongoose: false,
        });
        expectReady(await t.http().get('/ready'));

        proxy.stall();
        for (let attempt = 0; attempt < 2; attempt++) {
          const started = Date.now();
          const response = await t.http().get('/ready');
          const elapsed = Date.now() - started;
          expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
          expect(response.body.message).toBe('The database did not answer a ping within 1000 ms');
          expect(elapsed).toBeLessThan(readyTimeoutMS + 2000);
          await t.http().get('/health').expect(200);
        }

        proxy.resume();
        expectReady(
          await pollUntil(
            () => t!.http().get('/ready'),
            (response) => response.status === 200,
          ),
        );
      },
      60000,
    );
  });

  describe('forRootAsync: readyTimeoutMS computed, the paths given synchronously', () => {
    @Injectable()
    class ProbeConfig {
      readonly readyTimeoutMS = 700;
    }

    @Module({ providers: [ProbeConfig], exports: [ProbeConfig] })
    class ProbeConfigModule {}

    class HealthSettingsFactory implements ModelRoutesHealthSettingsFactory {
      createModelRoutesHealthSettings(): ModelRoutesHealthSettings {
        return { readyTimeoutMS: 800 };
      }
    }

    let t: TestApp | undefined;
    let proxy: StallingProxy | undefined;
    afterEach(async () => {
      proxy?.resume();
      await t?.close();
      await proxy?.close();
      t = proxy = undefined;
    });

    /** Boots `health` behind a proxy that stops answering, and returns the 503 of a stalled /<readyPath>. */
    async function stalledReady(health: ReturnType<typeof ModelRoutesHealthModule.forRootAsync>, readyPath = 'ready'): Promise<Response> {
      proxy = await startStallingProxy(engine.get().uri);
      const { uri } = proxy;
      t = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
        imports: ({ dbName }) => [MongooseModule.forRoot(uri, { dbName, serverSelectionTimeoutMS: 30000 }), health],
        mongoose: false,
      });
      expectReady(await t.http().get(`/${readyPath}`));
      proxy.stall();
      const response = await t.http().get(`/${readyPath}`);
      await t.http().get('/health').expect(200);
      return response;
    }

    itOnLocalEngine(
      'useFactory with inject of a provider of an imported module: its readyTimeoutMS bounds the 503, and the document says so',
      async () => {
        const response = await stalledReady(
          ModelRoutesHealthModule.forRootAsync({
            readyPath: 'status/ready',
            imports: [ProbeConfigModule],
            inject: [ProbeConfig],
            useFactory: (config: ProbeConfig) => ({ readyTimeoutMS: config.readyTimeoutMS }),
          }),
          'status/ready',
        );
        expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
        expect(response.body.message).toBe('The database did not answer a ping within 700 ms');
        const document = createModelRoutesDocument(t!.app, new DocumentBuilder().build());
        expect(document.paths['/status/ready']?.get?.responses['503']).toBeDefined();
        expect(JSON.stringify(document.paths['/status/ready']?.get)).toContain('Answers within 700 ms');
        expectNoRoute(await t!.http().get('/ready'));
      },
      60000,
    );

    itOnLocalEngine(
      'useClass: a class implementing createModelRoutesHealthSettings()',
      async () => {
        const response = await stalledReady(ModelRoutesHealthModule.forRootAsync({ useClass: HealthSettingsFactory }));
        expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
        expect(response.body.message).toBe('The database did not answer a ping within 800 ms');
      },
      60000,
    );

    it('a computed readyTimeoutMS it cannot use fails the boot with the error and message of forRoot()', async () => {
      const thrown = (() => {
        try {
          ModelRoutesHealthModule.forRoot({ readyTimeoutMS: 0 });
        } catch (error) {
          return error as ModelRoutesConfigError;
        }
        throw new Error('forRoot() accepted readyTimeoutMS 0');
      })();
      expect(thrown).toBeInstanceOf(ModelRoutesConfigError);
      expect(thrown.code).toBe('MR_CONFIG_INVALID_OPTION');
      const booted = bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
        imports: [ModelRoutesHealthModule.forRootAsync({ useFactory: async () => ({ readyTimeoutMS: 0 }) })],
      });
      await expect(booted).rejects.toBeInstanceOf(ModelRoutesConfigError);
      await expect(booted).rejects.toMatchObject({ code: 'MR_CONFIG_INVALID_OPTION', message: thrown.message });
    });

    it('a path it cannot use throws inside forRootAsync(), as in forRoot()', () => {
      expect(() => ModelRoutesHealthModule.forRootAsync({ readyPath: ':id', useFactory: () => ({}) })).toThrow(
        /^ModelRoutesHealthModule: readyPath is ':id'.*\[MR_CONFIG_INVALID_OPTION\]$/,
      );
    });
  });

  describe('options: a named connection, paths of its own, a global prefix', () => {
    let t: TestApp;
    beforeAll(async () => {
      // Only the 'catalog' connection is opened: a probe of the default one could not be built.
      t = await bootWithHealth({ healthPath: 'status/live', readyPath: '/status/ready/' }, { connectionName: 'catalog', globalPrefix: 'api' });
    });
    afterAll(() => t.close());

    it('serves the probes at those paths, pinging that connection', async () => {
      expect((await t.http().get('/api/status/live').expect(200)).body).toEqual({ status: 'ok' });
      expectReady(await t.http().get('/api/status/ready'));
      expectNoRoute(await t.http().get('/api/health'));
      expectNoRoute(await t.http().get('/api/ready'));
    });

    it('documents them under their paths', () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
      expect(document.paths['/api/status/live']?.get?.operationId).toBe('statusLive');
      expect(document.paths['/api/status/ready']?.get).toMatchObject({
        operationId: 'statusReady',
        summary: "Readiness: the database of connection 'catalog' answers ping",
      });
    });
  });

  describe('with globalErrorFilter: true', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await bootWithHealth({}, { globalErrorFilter: true });
    });
    afterAll(() => t.close());

    it('serves the probes, and a method they do not serve is the 404 of any unknown route', async () => {
      await t.http().get('/health').expect(200);
      expectReady(await t.http().get('/ready'));
      expectError(await t.http().post('/health').send({}), 404, 'MR_ROUTE_NOT_FOUND');
    });
  });

  describe('not opted in', () => {
    it('GET /health and /ready are 404 MR_ROUTE_NOT_FOUND (globalErrorFilter: true)', async () => {
      const t = await createTestApp(engine, { resources: [Entrepreneur, Company], globalErrorFilter: true });
      try {
        expectError(await t.http().get('/health'), 404, 'MR_ROUTE_NOT_FOUND');
        expectError(await t.http().get('/ready'), 404, 'MR_ROUTE_NOT_FOUND');
      } finally {
        await t.close();
      }
    });

    it("GET /health is Nest's own 404 (the default filter scope leaves unknown paths to the app)", async () => {
      const t = await createTestApp(engine, { resources: [Entrepreneur, Company] });
      try {
        expectNoRoute(await t.http().get('/health'));
      } finally {
        await t.close();
      }
    });
  });
}
