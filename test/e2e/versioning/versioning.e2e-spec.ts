/**
 * Versioned generated routes: a version per module, per resource and per route, honoured by every
 * route family (resource, reference, file, element, your controller's routes), the 405 `Allow`,
 * the OpenAPI document and the back office's metadata, with URI, header and media type
 * versioning; and a global prefix whose `exclude` covers generated routes.
 */
import { Controller, Get, RequestMethod, Version, VERSION_NEUTRAL, VersioningType, type INestApplication, type VersioningOptions } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { DocumentBuilder } from '@nestjs/swagger';
import type request from 'supertest';
import { FileProp, FileRef, GeneratedController, GeneratedResource, ModelRoutesExplorer, ModelRoutesModule } from '../../../src/index.js';
import { BackOfficeModule, type BackOfficeMetadata } from '../../../src/back-office/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function versioningSpec(): void {
  @GeneratedResource({ path: 'keeper', plural: 'keepers' })
  @Schema()
  class Keeper {
    @Prop({ required: true }) name!: string;
  }

  @Schema()
  class Visit {
    @Prop({ required: true }) reason!: string;
  }

  /** Version 2 (its own), but its search serves versions 1 and 2 (the route's own). */
  @GeneratedResource({ version: '2', routes: { search: { version: ['1', '2'] } } })
  @Schema()
  class Animal {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Keeper' }) keeper?: Types.ObjectId;
    @FileProp({ accept: ['application/pdf'] }) passport?: FileRef;
    @Prop({ type: [Visit] }) visits?: Visit[];
  }

  /** A route of yours without a version (the resource's), and one with its own. */
  @Controller()
  class AnimalController extends GeneratedController(Animal) {
    @Get('count')
    count() {
      return { version: 'resource' };
    }

    @Version('1')
    @Get('legacy')
    legacy() {
      return { version: 'own' };
    }
  }

  const engine = useEngine();

  /** Every module version 1, `Animal` 2: the app, its requests, and what it documents. */
  async function boot(
    versioning: VersioningOptions,
    prefix?: { prefix: string; exclude?: Parameters<INestApplication['setGlobalPrefix']>[1] },
  ): Promise<TestApp> {
    return bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Keeper, Animal], controllers: [AnimalController], version: '1' }),
      imports: [BackOfficeModule.forRoot()],
      configure: (app) => {
        if (prefix) app.setGlobalPrefix(prefix.prefix, prefix.exclude);
        app.enableVersioning(versioning);
      },
    });
  }

  function operations(t: TestApp): Array<{ path: string; method: string; operationId: string }> {
    const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
    return Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { operationId: string }>).map(([method, operation]) => ({ path, method, operationId: operation.operationId })),
    );
  }

  function expectUniqueOperationIds(t: TestApp): void {
    const ids = operations(t).map((operation) => operation.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  }

  type Send = (test: request.Test) => request.Test;

  /** The same scenario, whatever carries the version: `at(version, path)` the URL, `send(version)` its headers. */
  async function exercise(t: TestApp, at: (version: string, path: string) => string, send: (version: string) => Send): Promise<void> {
    const v1 = send('1');
    const v2 = send('2');
    const keeper = (await v1(t.http().post(at('1', '/keeper')).send({ name: 'Ann' })).expect(201)).body;
    expect((await v1(t.http().get(at('1', `/keeper/${keeper._id}`))).expect(200)).body.name).toBe('Ann');
    const created = await v2(t.http().post(at('2', '/animal')).send({ name: 'Rex', keeper: keeper._id })).expect(201);
    const animal = created.body;
    // Location: the URL it was created at, version included.
    expect(created.headers.location).toBe(`${at('2', '/animal')}/${animal._id}`);
    expect((await v2(t.http().get(at('2', `/animal/${animal._id}`))).expect(200)).body.name).toBe('Rex');
    // Reference routes (the forward one and the reverse one, under the target's path) are the source's: version 2.
    expect((await v2(t.http().get(at('2', `/animal/${animal._id}/keeper`))).expect(200)).body.name).toBe('Ann');
    expect((await v2(t.http().get(at('2', `/keeper/${keeper._id}/animals/keeper`))).expect(200)).body.status.match_count).toBe(1);
    // Element routes.
    expect(
      (
        await v2(
          t
            .http()
            .post(at('2', `/animal/${animal._id}/visits`))
            .send({ reason: 'check-up' }),
        ).expect(201)
      ).body.visits,
    ).toEqual([expect.objectContaining({ reason: 'check-up' })]);
    // File routes: no file yet, but the route is there.
    expect((await v2(t.http().get(at('2', `/animal/${animal._id}/passport`))).expect(404)).body.code).toBe('MR_FILE_NOT_FOUND');
    // The search serves both versions.
    expect((await v1(t.http().get(at('1', '/animals'))).expect(200)).body.status.match_count).toBe(1);
    expect((await v2(t.http().get(at('2', '/animals'))).expect(200)).body.status.match_count).toBe(1);
    // Your routes: the resource's version.
    expect((await v2(t.http().get(at('2', '/animal/count'))).expect(200)).body).toEqual({ version: 'resource' });
    expect((await v1(t.http().get(at('1', '/animal/legacy'))).expect(200)).body).toEqual({ version: 'own' });
    // Not in the other version.
    expect((await v1(t.http().get(at('1', `/animal/${animal._id}`))).expect(404)).body.code).not.toBe('MR_NOT_FOUND');
    expect((await v2(t.http().get(at('2', `/keeper/${keeper._id}`))).expect(404)).body.code).not.toBe('MR_NOT_FOUND');
    // 405 Allow: the methods the path serves in that version.
    const denied = await v1(t.http().delete(at('1', '/keepers'))).expect(405);
    expect(denied.headers.allow).toBe('GET, HEAD, POST');
    const file = await v2(t.http().post(at('2', `/animal/${animal._id}/passport`))).expect(405);
    expect(file.headers.allow).toBe('DELETE, GET, HEAD, PUT');
    // A version the path does not serve: no route, not a 405.
    await send('3')(t.http().delete(at('3', '/keepers'))).expect(404);
  }

  /** The back office's metadata: where the page must send each generated request. */
  async function metadataOf(t: TestApp, path = '/admin/metadata'): Promise<BackOfficeMetadata> {
    return (await t.http().get(path).expect(200)).body as BackOfficeMetadata;
  }

  describe('URI versioning, with a global prefix that excludes the keeper routes', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot(
        { type: VersioningType.URI },
        {
          prefix: 'api',
          exclude: { exclude: ['keepers', 'keeper', 'keeper/:keeper_id', { path: 'keeper/:keeper_id/animals/keeper', method: RequestMethod.GET }] },
        },
      );
    });
    afterAll(() => t?.close());

    it('serves every route family under /v<version>, and the prefix where not excluded', async () => {
      // The keeper routes are excluded from the prefix, not from their version.
      const at = (version: string, path: string) => (path.startsWith('/keeper') ? `/v${version}${path}` : `/api/v${version}${path}`);
      await exercise(t, at, () => (test) => test);
      // Unversioned paths are not served.
      await t.http().get('/api/animals').expect(404);
    });

    it('lists each route where it is served, and the route table says its version', () => {
      const routes = t.app.get(ModelRoutesExplorer).routes();
      expect(routes.find((route) => route.action === 'search' && route.resource === 'Animal')?.version).toEqual(['1', '2']);
      expect(routes.find((route) => route.action === 'findOne' && route.resource === 'Keeper')?.version).toBe('1');
      expect(routes.find((route) => route.handler === 'count')?.version).toBe('2');
      expect(routes.find((route) => route.handler === 'legacy')?.version).toBe('1');
    });

    it('documents each version at its own path, with operationIds ending in the version', () => {
      const all = operations(t);
      expect(all).toEqual(
        expect.arrayContaining([
          { path: '/api/v1/animals', method: 'get', operationId: 'animal_search_v1' },
          { path: '/api/v2/animals', method: 'get', operationId: 'animal_search_v2' },
          { path: '/api/v2/animal/{animal_id}/passport', method: 'put', operationId: 'animal_passport_upload_v2' },
          { path: '/v1/keeper/{keeper_id}', method: 'get', operationId: 'keeper_findOne_v1' },
          { path: '/v2/keeper/{keeper_id}/animals/keeper', method: 'get', operationId: 'animal_keeper_reverse_v2' },
        ]),
      );
      expectUniqueOperationIds(t);
    });

    it('gives the back office the base of each route; its own routes have no version', async () => {
      const metadata = await metadataOf(t, '/api/admin/metadata');
      expect(metadata.apiBase).toBe('/api');
      expect(metadata.routes).toEqual(
        expect.arrayContaining([
          { method: 'GET', path: '/animal/:animal_id', base: '/api/v2' },
          { method: 'GET', path: '/keeper/:keeper_id', base: '/v1' },
        ]),
      );
    });
  });

  describe('header versioning', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot({ type: VersioningType.HEADER, header: 'X-Api-Version' });
    });
    afterAll(() => t?.close());

    it('serves every route family at its path for the version the header names', async () => {
      await exercise(
        t,
        (_version, path) => path,
        (version) => (test) => test.set('x-api-version', version),
      );
      // No version named: none of these routes.
      await t.http().get('/keepers').expect(404);
    });

    it('documents each route once, its operationId ending in every version it answers', () => {
      const all = operations(t);
      expect(all).toEqual(
        expect.arrayContaining([
          { path: '/animals', method: 'get', operationId: 'animal_search_v1_v2' },
          { path: '/keeper/{keeper_id}', method: 'get', operationId: 'keeper_findOne_v1' },
          { path: '/animal/{animal_id}/visits', method: 'post', operationId: 'animal_visits_addElement_v2' },
        ]),
      );
      expectUniqueOperationIds(t);
    });

    it('gives the back office the header of each route', async () => {
      const metadata = await metadataOf(t);
      expect(metadata.routes).toEqual(
        expect.arrayContaining([
          { method: 'GET', path: '/animal/:animal_id', base: '', headers: { 'x-api-version': '2' } },
          { method: 'GET', path: '/keepers', base: '', headers: { 'x-api-version': '1' } },
        ]),
      );
    });
  });

  describe('media type versioning, under a global prefix', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot({ type: VersioningType.MEDIA_TYPE, key: 'v=' }, { prefix: 'api' });
    });
    afterAll(() => t?.close());

    it('serves every route family at its path for the version Accept names', async () => {
      await exercise(
        t,
        (_version, path) => `/api${path}`,
        (version) => (test) => test.set('accept', `application/json;v=${version}`),
      );
    });

    it('documents each route once, with unique operationIds', () => {
      expect(operations(t)).toEqual(expect.arrayContaining([{ path: '/api/animal/{animal_id}', method: 'get', operationId: 'animal_findOne_v2' }]));
      expectUniqueOperationIds(t);
    });

    it('gives the back office the Accept of each route', async () => {
      const metadata = await metadataOf(t, '/api/admin/metadata');
      expect(metadata.routes).toEqual(
        expect.arrayContaining([{ method: 'PATCH', path: '/animal/:animal_id', base: '/api', headers: { accept: 'application/json;v=2' } }]),
      );
    });
  });

  describe('a default version and VERSION_NEUTRAL', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Keeper], version: VERSION_NEUTRAL }),
        imports: [BackOfficeModule.forRoot()],
        configure: (app) => app.enableVersioning({ type: VersioningType.URI, defaultVersion: '5' }),
      });
    });
    afterAll(() => t?.close());

    it('serves neutral routes without a version, and the back office outside the default version', async () => {
      await t.http().post('/keeper').send({ name: 'Bo' }).expect(201);
      await t.http().get('/v5/keepers').expect(404);
      const metadata = await metadataOf(t);
      expect(metadata.routes).toBeUndefined();
      expect(operations(t)).toEqual(expect.arrayContaining([{ path: '/keepers', method: 'get', operationId: 'keeper_search' }]));
    });
  });
}
