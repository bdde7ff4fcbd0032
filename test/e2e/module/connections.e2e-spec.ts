import { Controller, Get, Module, type DynamicModule } from '@nestjs/common';
import { getConnectionToken, MongooseModule } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { InjectModelRepository, ModelRepository, ModelRoutesExplorer, ModelRoutesModule } from '../../../src/index.js';
import { Gadget, Part } from '../../fixtures/extend-models.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp, type TestApp, type TestAppSetup } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function connectionsSpec(): void {
  /** Connections: a named connection, two registrations (one per connection) in one app, and isGlobal. */

  const engine = useEngine();

  type Started = Pick<TestApp, 'app' | 'http' | 'connection'>;

  /** An app of the library and these controllers, on a fresh database named after the test. */
  function start(modelRoutes: DynamicModule, connectionName?: string, extra: Pick<TestAppSetup, 'controllers'> = {}): Promise<Started> {
    return bootTestApp(engine, { modelRoutes, connectionName, ...extra });
  }

  // ---- Named connection ----------------------------------------------------------------------------------

  @Controller('catalog-report')
  class CatalogReportController {
    constructor(@InjectModelRepository(Gadget, 'catalog') private readonly gadgets: ModelRepository<Gadget>) {}

    @Get()
    async report() {
      return { gadgets: await this.gadgets.model.countDocuments() };
    }
  }

  describe("a named connection: forRoot({ connectionName: 'catalog' })", () => {
    let started: Started;
    beforeAll(async () => {
      started = await start(ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog' }), 'catalog', {
        controllers: [CatalogReportController],
      });
    });

    it('serves the resource routes, storing in that connection', async () => {
      const { http, connection } = started;
      const created = (await http().post('/gadget').send({ name: 'lamp', rank: 1 }).expect(201)).body;
      expect(created.name).toBe('lamp');
      expect(await connection.model('Gadget').countDocuments({ name: 'lamp' })).toBe(1);
      expect((await http().get(`/gadget/${created._id}`).expect(200)).body).toEqual({ _id: created._id, name: 'lamp', rank: 1 });
      expect((await http().put(`/gadget/${created._id}`).send({ rank: 2 }).expect(200)).body.rank).toBe(2);
      expect((await http().get('/gadgets?name=lamp').expect(200)).body.status.match_count).toBe(1);
    });

    it('serves the reference routes', async () => {
      const { http } = started;
      const gadget = (await http().post('/gadget').send({ name: 'desk' }).expect(201)).body;
      const part = (await http().post('/part').send({ name: 'leg', gadget: gadget._id }).expect(201)).body;
      expect((await http().get(`/part/${part._id}/gadget`).expect(200)).body).toEqual(gadget);
      expect((await http().get(`/gadget/${gadget._id}/parts/gadget`).expect(200)).body.result).toEqual([part]);
      expect((await http().post(`/gadget/${gadget._id}/parts/gadget`).send({}).expect(200)).body.result).toEqual([part]);
    });

    it("injects the repositories with @InjectModelRepository(Gadget, 'catalog')", async () => {
      const { http, connection } = started;
      expect((await http().get('/catalog-report').expect(200)).body).toEqual({ gadgets: await connection.model('Gadget').countDocuments() });
    });
  });

  describe('two registrations in one app, one per connection', () => {
    @Controller('both')
    class BothController {
      constructor(
        @InjectModelRepository(Company) private readonly companies: ModelRepository<Company>,
        @InjectModelRepository(Gadget, 'catalog') private readonly gadgets: ModelRepository<Gadget>,
      ) {}

      @Get()
      async counts() {
        return { companies: await this.companies.model.countDocuments(), gadgets: await this.gadgets.model.countDocuments() };
      }
    }

    let t: TestApp;
    let catalog: Connection;
    beforeAll(async () => {
      t = await bootTestApp(engine, {
        imports: ({ uri, dbName }) => [
          MongooseModule.forRoot(uri, { dbName: `${dbName}_catalog`, connectionName: 'catalog' }),
          ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
          ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog' }),
        ],
        controllers: [BothController],
      });
      catalog = t.app.get<Connection>(getConnectionToken('catalog'));
    });
    afterAll(() => catalog?.dropDatabase());

    it('serves the routes of both, each storing in its own connection', async () => {
      await t.http().post('/company').send({ niceName: 'Acme', employees: 3 }).expect(201);
      const gadget = (await t.http().post('/gadget').send({ name: 'lamp' }).expect(201)).body;
      await t.http().post('/part').send({ name: 'shade', gadget: gadget._id }).expect(201);
      expect(await t.connection.model('Company').countDocuments()).toBe(1);
      expect(await catalog.model('Gadget').countDocuments()).toBe(1);
      expect(t.connection.modelNames()).not.toContain('Gadget');
      expect((await t.http().get(`/gadget/${gadget._id}/parts/gadget`).expect(200)).body.status.match_count).toBe(1);
      expect((await t.http().get('/both').expect(200)).body).toEqual({ companies: 1, gadgets: 1 });
    });

    it('keeps each registration apart in the explorer, and answers 405 on the paths of both', async () => {
      const registrations = t.app.get(ModelRoutesExplorer).registrations();
      expect(registrations.map((registration) => [registration.connectionName, registration.definitions.map((definition) => definition.name)])).toEqual([
        [undefined, ['Entrepreneur', 'Company']],
        ['catalog', ['Gadget', 'Part']],
      ]);
      expectError(await t.http().delete('/companies'), 405, 'MR_METHOD_NOT_ALLOWED');
      expectError(await t.http().delete('/gadgets'), 405, 'MR_METHOD_NOT_ALLOWED');
    });
  });

  describe('isGlobal', () => {
    @Controller('elsewhere')
    class ElsewhereController {
      constructor(@InjectModelRepository(Gadget) private readonly gadgets: ModelRepository<Gadget>) {}

      @Get()
      async count() {
        return { gadgets: await this.gadgets.model.countDocuments() };
      }
    }

    /** A module that does not import the registration, injecting one of its repositories. */
    @Module({ controllers: [ElsewhereController] })
    class ElsewhereModule {}

    it('true (the default): a repository is injectable in any module', async () => {
      const { http } = await bootTestApp(engine, { imports: [ModelRoutesModule.forRoot({ resources: [Gadget, Part] }), ElsewhereModule] });
      expect((await http().get('/elsewhere').expect(200)).body).toEqual({ gadgets: 0 });
    });

    it('false: only the module that imports the registration sees its repositories', async () => {
      await expect(
        bootTestApp(engine, { imports: [ModelRoutesModule.forRoot({ resources: [Gadget, Part], isGlobal: false }), ElsewhereModule] }),
      ).rejects.toThrow(/GadgetRepository/);
      const { http } = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Gadget, Part], isGlobal: false }),
        controllers: [ElsewhereController],
      });
      expect((await http().get('/elsewhere').expect(200)).body).toEqual({ gadgets: 0 });
    });
  });
}
