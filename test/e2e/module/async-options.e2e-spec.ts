import { Controller, Get, Injectable, Module, type DynamicModule } from '@nestjs/common';
import { DocumentBuilder } from '@nestjs/swagger';
import { Types } from 'mongoose';
import { GeneratedController, ModelRoutesModule, type ModelRoutesSettings, type ModelRoutesSettingsFactory } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { Gadget, Part } from '../../fixtures/extend-models.js';
import { bootTestApp, type TestApp, type TestAppSetup } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function asyncOptionsSpec(): void {
  /** ModelRoutesModule.forRootAsync: settings from useFactory, useClass and useExisting, extras given synchronously. */

  const engine = useEngine();

  type Started = Pick<TestApp, 'app' | 'http' | 'connection'>;

  /** An app of the library and these controllers, on a fresh database named after the test. */
  function start(modelRoutes: DynamicModule, connectionName?: string, extra: Pick<TestAppSetup, 'controllers'> = {}): Promise<Started> {
    return bootTestApp(engine, { modelRoutes, connectionName, ...extra });
  }

  async function seedGadgets(http: TestApp['http'], count: number): Promise<void> {
    for (let rank = 1; rank <= count; rank++)
      await http()
        .post('/gadget')
        .send({ name: `g${rank}`, rank })
        .expect(201);
  }

  // ---- forRootAsync ------------------------------------------------------------------------------------

  @Injectable()
  class LimitsService {
    readonly maxLimit = 3;
  }

  @Module({ providers: [LimitsService], exports: [LimitsService] })
  class LimitsModule {}

  class SettingsFactory implements ModelRoutesSettingsFactory {
    createModelRoutesSettings(): ModelRoutesSettings {
      return { search: { maxLimit: 2 } };
    }
  }

  @Injectable()
  class ExistingSettings implements ModelRoutesSettingsFactory {
    async createModelRoutesSettings(): Promise<ModelRoutesSettings> {
      return { search: { maxLimit: 4 } };
    }
  }

  @Module({ providers: [ExistingSettings], exports: [ExistingSettings] })
  class ExistingSettingsModule {}

  @Controller()
  class AsyncGadgetController extends GeneratedController(Gadget) {
    @Get('count')
    async count() {
      return { count: await this.repository.model.countDocuments() };
    }
  }

  describe('ModelRoutesModule.forRootAsync', () => {
    it('useFactory with inject of a provider from an imported module: GET /gadgets?limit=50 applies maxLimit 3', async () => {
      const { http } = await start(
        ModelRoutesModule.forRootAsync({
          resources: [Gadget, Part],
          imports: [LimitsModule],
          inject: [LimitsService],
          useFactory: (limits: LimitsService) => ({ search: { maxLimit: limits.maxLimit } }),
        }),
      );
      await seedGadgets(http, 5);
      const response = await http().get('/gadgets?limit=50&sort=rank').expect(200);
      expect(response.body.status).toEqual({ count: 5, search_count: 3, match_count: 5, counted: 'exact', limit: 3, skip: 0, next: expect.any(String) });
      expect((await http().post('/gadgets').send({ limit: 50 }).expect(200)).body.status.limit).toBe(3);
      // A lower maximum also lowers the default.
      expect((await http().get('/gadgets').expect(200)).body.status.limit).toBe(3);
    });

    it('the settings also apply to the reverse reference routes', async () => {
      const { http } = await start(
        ModelRoutesModule.forRootAsync({
          resources: [Gadget, Part],
          imports: [LimitsModule],
          inject: [LimitsService],
          useFactory: async (limits: LimitsService) => ({ search: { maxLimit: limits.maxLimit } }),
        }),
      );
      const gadget = (await http().post('/gadget').send({ name: 'hub' }).expect(201)).body;
      for (let i = 0; i < 5; i++)
        await http()
          .post('/part')
          .send({ name: `p${i}`, gadget: gadget._id })
          .expect(201);
      const response = await http().get(`/gadget/${gadget._id}/parts/gadget?limit=50`).expect(200);
      expect(response.body.status).toMatchObject({ search_count: 3, match_count: 5, counted: 'exact', limit: 3 });
    });

    it('useClass: a class implementing createModelRoutesSettings()', async () => {
      const { http } = await start(ModelRoutesModule.forRootAsync({ resources: [Gadget], useClass: SettingsFactory }));
      await seedGadgets(http, 3);
      const response = await http().get('/gadgets?limit=50').expect(200);
      expect(response.body.status).toMatchObject({ search_count: 2, limit: 2 });
    });

    it('useExisting: a provider of an imported module', async () => {
      const { http } = await start(ModelRoutesModule.forRootAsync({ resources: [Gadget], imports: [ExistingSettingsModule], useExisting: ExistingSettings }));
      await seedGadgets(http, 5);
      const response = await http().post('/gadgets').send({ limit: 50 }).expect(200);
      expect(response.body.status).toMatchObject({ search_count: 4, limit: 4 });
    });

    it('takes resources, controllers and route options synchronously in the same object', async () => {
      const { http, connection } = await start(
        ModelRoutesModule.forRootAsync({
          resources: [Gadget, Part],
          controllers: [AsyncGadgetController],
          routes: { delete: false },
          references: { reverse: false, reversePost: false },
          imports: [LimitsModule],
          inject: [LimitsService],
          useFactory: (limits: LimitsService) => ({ search: { maxLimit: limits.maxLimit } }),
        }),
      );
      await seedGadgets(http, 2);
      const gadget = await connection.model('Gadget').findOne({ name: 'g1' }).lean<{ _id: Types.ObjectId }>();
      expect((await http().get('/gadget/count').expect(200)).body).toEqual({ count: 2 });
      expectError(await http().delete(`/gadget/${String(gadget!._id)}`), 405, 'MR_METHOD_NOT_ALLOWED');
      expectNoRoute(await http().get(`/gadget/${String(gadget!._id)}/parts/gadget`));
      await http()
        .get(`/gadget/${String(gadget!._id)}`)
        .expect(200);
      expect(await connection.model('Gadget').countDocuments()).toBe(2);
    });

    it('requireIfMatch from the factory: a write without If-Match is a 428, with it a 200', async () => {
      const { http } = await start(ModelRoutesModule.forRootAsync({ resources: [Gadget], useFactory: async () => ({ requireIfMatch: true }) }));
      const created = await http().post('/gadget').send({ name: 'g', rank: 1 }).expect(201);
      expectError(await http().put(`/gadget/${created.body._id}`).send({ rank: 2 }), 428, 'MR_PRECONDITION_REQUIRED');
      await http().put(`/gadget/${created.body._id}`).set('If-Match', created.headers.etag).send({ rank: 2 }).expect(200);
    });
  });

  // ---- two apps from one registration ----------------------------------------------------------------

  const APP_SETTINGS = Symbol('AppSettings');

  /** A module, global to its app, giving that app's settings to the registration's factory. */
  function appSettings(settings: ModelRoutesSettings): DynamicModule {
    return { module: class AppSettingsModule {}, global: true, providers: [{ provide: APP_SETTINGS, useValue: settings }], exports: [APP_SETTINGS] };
  }

  describe('two apps built from one forRootAsync registration, with different settings', () => {
    // One plan, so one set of controllers and handlers for both apps; each resolves its own settings.
    const modelRoutes = ModelRoutesModule.forRootAsync({
      resources: [Gadget],
      inject: [APP_SETTINGS],
      useFactory: (settings: ModelRoutesSettings) => settings,
    });

    it('each answers and documents its own: limits, and If-Match required (428) in the second only', async () => {
      const first = await bootTestApp(engine, { modelRoutes, imports: [appSettings({ search: { maxLimit: 3 } })] });
      const second = await bootTestApp(engine, { modelRoutes, imports: [appSettings({ search: { maxLimit: 5 }, requireIfMatch: true })] });
      for (const [{ app }, maxLimit, required] of [
        [first, 3, false],
        [second, 5, true],
      ] as const) {
        const document = createModelRoutesDocument(app, new DocumentBuilder().setTitle('gadgets').build());
        const search = document.paths['/gadgets']!.get!;
        const limit = search.parameters!.find((parameter) => 'name' in parameter && parameter.name === 'limit') as {
          description?: string;
          schema?: { default?: number };
        };
        expect([limit.description, limit.schema?.default]).toEqual([`At most ${maxLimit}; larger values are clamped.`, Math.min(20, maxLimit)]);
        const body = (document.components!.schemas!.GadgetSearchDto as { properties: Record<string, { description?: string }> }).properties.limit.description;
        expect(body).toBe(`Default ${Math.min(20, maxLimit)}; at most ${maxLimit}, larger values are clamped.`);
        const update = document.paths['/gadget/{gadget_id}']!.put!;
        const ifMatch = update.parameters!.find((parameter) => 'name' in parameter && parameter.name === 'If-Match') as { required?: boolean };
        expect([ifMatch.required, '428' in update.responses]).toEqual([required, required]);
      }
      // Through HTTP, each response checked against its own app's document.
      for (const [{ http }, maxLimit, required] of [
        [first, 3, false],
        [second, 5, true],
      ] as const) {
        const created = await http().post('/gadget').send({ name: 'g', rank: 1 }).expect(201);
        expect((await http().put(`/gadget/${created.body._id}`).send({ rank: 2 })).status).toBe(required ? 428 : 200);
        expect((await http().get('/gadgets?limit=50').expect(200)).body.status.limit).toBe(maxLimit);
      }
    });
  });
}
