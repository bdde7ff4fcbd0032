import { Controller, Get, Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { getConnectionToken, MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { Types, type Connection } from 'mongoose';
import {
  GeneratedController,
  GeneratedResource,
  InjectModelRepository,
  ModelRepository,
  ModelRoutesConfigError,
  ModelRoutesExplorer,
  ModelRoutesModule,
  type ModelRoutesModuleOptions,
  type ModelRoutesSettings,
  type ModelRoutesSettingsFactory,
} from '../../src/index.js';
import { Gadget, Part } from '../fixtures/extend-models.js';
import { Company, Entrepreneur } from '../fixtures/models.js';
import { bootTestApp, type TestApp, type TestAppSetup } from '../support/app.js';
import { useEngine } from '../support/engine.js';
import { expectError, expectNoRoute } from '../support/expect-error.js';

/** forRootAsync, named connections, and the errors found at startup. */

const engine = useEngine();

type Started = Pick<TestApp, 'app' | 'http' | 'connection'>;

/** An app of the library and these controllers, on a fresh database named after the test. */
function start(modelRoutes: DynamicModule, connectionName?: string, extra: Pick<TestAppSetup, 'controllers'> = {}): Promise<Started> {
  return bootTestApp(engine, { modelRoutes, connectionName, ...extra });
}

async function seedGadgets(http: TestApp['http'], count: number): Promise<void> {
  for (let rank = 1; rank <= count; rank++) await http().post('/gadget').send({ name: `g${rank}`, rank }).expect(201);
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
    expect(response.body.status).toEqual({ count: 5, search_count: 3, match_count: 5, limit: 3, skip: 0 });
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
    for (let i = 0; i < 5; i++) await http().post('/part').send({ name: `p${i}`, gadget: gadget._id }).expect(201);
    const response = await http().get(`/gadget/${gadget._id}/parts/gadget?limit=50`).expect(200);
    expect(response.body.status).toMatchObject({ search_count: 3, match_count: 5, limit: 3 });
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
    await http().get(`/gadget/${String(gadget!._id)}`).expect(200);
    expect(await connection.model('Gadget').countDocuments()).toBe(2);
  });
});

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

// ---- Startup errors ---------------------------------------------------------------------------------------

/** Runs forRoot, then compiles and starts an app with it; returns what was thrown, if anything. */
async function startupError(options: ModelRoutesModuleOptions): Promise<ModelRoutesConfigError & { code: string }> {
  let app: INestApplication | undefined;
  try {
    const routes = ModelRoutesModule.forRoot(options);
    @Module({ imports: [MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('startup') }), routes] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  } catch (error) {
    await app?.close().catch(() => undefined);
    return error as ModelRoutesConfigError & { code: string };
  }
  await app.close();
  throw new Error('the app started without error');
}

@GeneratedResource({ path: 'thing' })
@Schema()
class FirstThing {
  @Prop() name?: string;
}

@GeneratedResource({ path: 'thing', plural: 'thing-list' })
@Schema()
class SecondThing {
  @Prop() name?: string;
}

@GeneratedResource({ id: 'isbn' })
@Schema()
class NoIsbnBook {
  @Prop() title?: string;
}

@GeneratedResource({ routes: { destroy: false } as never })
@Schema()
class DestroyRouteModel {
  @Prop() name?: string;
}

@GeneratedResource({ hidden: ['nope'] })
@Schema()
class HiddenNopeModel {
  @Prop() name?: string;
}

@Schema()
class PlainSchemaModel {
  @Prop() name?: string;
}

@GeneratedResource()
@Schema()
class OwnerModel {
  @Prop() name?: string;
}

@GeneratedResource({ references: { notAField: { reverse: false } } })
@Schema()
class NotAFieldModel {
  @Prop({ type: Types.ObjectId, ref: 'OwnerModel' }) owner?: Types.ObjectId;
}

@GeneratedResource({ references: { owner: { sideways: false } as never } })
@Schema()
class SidewaysModel {
  @Prop({ type: Types.ObjectId, ref: 'OwnerModel' }) owner?: Types.ObjectId;
}

@Controller()
class NotExtendingController {
  @Get('x') x() {
    return {};
  }
}

@Controller()
class UnlistedGadgetController extends GeneratedController(Gadget) {}

@Controller('x')
class PathOwnerController extends GeneratedController(OwnerModel) {}

@Controller()
class FirstOwnerController extends GeneratedController(OwnerModel) {}

@Controller()
class SecondOwnerController extends GeneratedController(OwnerModel) {}

describe('startup errors: a ModelRoutesConfigError with a code, naming the class and the fix', () => {
  it('MR_CONFIG_DUPLICATE_PATH: two resources on one path', async () => {
    const error = await startupError({ resources: [FirstThing, SecondThing] });
    expect(error).toBeInstanceOf(ModelRoutesConfigError);
    expect(error.code).toBe('MR_CONFIG_DUPLICATE_PATH');
    expect(error.message).toContain('SecondThing');
    expect(error.message).toContain('FirstThing');
    expect(error.message).toContain("'thing'");
    expect(error.message).toMatch(/@GeneratedResource/);
  });

  it('MR_CONFIG_UNKNOWN_ID_FIELD', async () => {
    const error = await startupError({ resources: [NoIsbnBook] });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ID_FIELD');
    expect(error.message).toContain('NoIsbnBook');
    expect(error.message).toContain('isbn');
    expect(error.message).toMatch(/@Prop|remove the id option/);
  });

  it("MR_CONFIG_UNKNOWN_ROUTE: @GeneratedResource({ routes: { destroy: false } })", async () => {
    const error = await startupError({ resources: [DestroyRouteModel] });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
    expect(error.message).toContain('DestroyRouteModel');
    expect(error.message).toContain('destroy');
    expect(error.message).toMatch(/findOne, create, update, patch, delete, search, searchPost/);
  });

  it('MR_CONFIG_UNKNOWN_ROUTE: forRoot({ routes: { destroy: false } })', async () => {
    const error = await startupError({ resources: [OwnerModel], routes: { destroy: false } as never });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
    expect(error.message).toContain('forRoot');
    expect(error.message).toContain('destroy');
    expect(error.message).toMatch(/findOne, create, update, patch, delete, search, searchPost/);
  });

  it('MR_CONFIG_UNKNOWN_ROUTE: forRoot({ references: { sideways: false } })', async () => {
    const error = await startupError({ resources: [OwnerModel], references: { sideways: false } as never });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
    expect(error.message).toContain('sideways');
    expect(error.message).toMatch(/find, list, reverse, reversePost, add, remove/);
  });

  it('MR_CONFIG_UNKNOWN_ROUTE: references: { notAField: {...} }', async () => {
    const error = await startupError({ resources: [OwnerModel, NotAFieldModel] });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
    expect(error.message).toContain('NotAFieldModel');
    expect(error.message).toContain('notAField');
    expect(error.message).toContain('owner'); // the fields it could have named
  });

  it('MR_CONFIG_UNKNOWN_ROUTE: references: { owner: { sideways: false } }', async () => {
    const error = await startupError({ resources: [OwnerModel, SidewaysModel] });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_ROUTE');
    expect(error.message).toContain('SidewaysModel');
    expect(error.message).toContain('sideways');
    expect(error.message).toMatch(/find, list, reverse, reversePost, add, remove/);
  });

  it('MR_CONFIG_INVALID_CONTROLLER: a controller that does not extend GeneratedController', async () => {
    const error = await startupError({ resources: [OwnerModel], controllers: [NotExtendingController] });
    expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
    expect(error.message).toContain('NotExtendingController');
    expect(error.message).toContain('GeneratedController(');
  });

  it('MR_CONFIG_INVALID_CONTROLLER: a controller whose resource is not in resources', async () => {
    const error = await startupError({ resources: [OwnerModel], controllers: [UnlistedGadgetController] });
    expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
    expect(error.message).toContain('UnlistedGadgetController');
    expect(error.message).toContain('Gadget');
    expect(error.message).toContain('resources');
  });

  it("MR_CONFIG_INVALID_CONTROLLER: a controller with @Controller('x')", async () => {
    const error = await startupError({ resources: [OwnerModel], controllers: [PathOwnerController] });
    expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
    expect(error.message).toContain('PathOwnerController');
    expect(error.message).toContain("'x'");
    expect(error.message).toContain('@Controller()');
  });

  it('MR_CONFIG_INVALID_CONTROLLER: two controllers for one resource', async () => {
    const error = await startupError({ resources: [OwnerModel], controllers: [FirstOwnerController, SecondOwnerController] });
    expect(error.code).toBe('MR_CONFIG_INVALID_CONTROLLER');
    expect(error.message).toContain('FirstOwnerController');
    expect(error.message).toContain('SecondOwnerController');
    expect(error.message).toContain('OwnerModel');
  });

  it('MR_CONFIG_INVALID_CONTROLLER: a controller of another connection than its registration', () => {
    // Thrown by forRoot itself: no database needed.
    @Controller()
    class DefaultGadgetController extends GeneratedController(Gadget) {}
    @Controller()
    class CatalogGadgetController extends GeneratedController(Gadget, 'catalog') {}
    expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog', controllers: [DefaultGadgetController] })).toThrow(
      expect.objectContaining({ code: 'MR_CONFIG_INVALID_CONTROLLER', message: expect.stringContaining("GeneratedController(Gadget, 'catalog')") }),
    );
    expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], controllers: [CatalogGadgetController] })).toThrow(
      expect.objectContaining({ code: 'MR_CONFIG_INVALID_CONTROLLER', message: expect.stringContaining("on 'catalog'") }),
    );
    expect(() => ModelRoutesModule.forRoot({ resources: [Gadget, Part], connectionName: 'catalog', controllers: [CatalogGadgetController] })).not.toThrow();
  });

  it('MR_CONFIG_NOT_A_RESOURCE', async () => {
    const error = await startupError({ resources: [PlainSchemaModel] });
    expect(error.code).toBe('MR_CONFIG_NOT_A_RESOURCE');
    expect(error.message).toContain('PlainSchemaModel');
    expect(error.message).toContain('@GeneratedResource()');
  });

  it("MR_CONFIG_UNKNOWN_FIELD: hidden: ['nope']", async () => {
    const error = await startupError({ resources: [HiddenNopeModel] });
    expect(error.code).toBe('MR_CONFIG_UNKNOWN_FIELD');
    expect(error.message).toContain('HiddenNopeModel');
    expect(error.message).toContain('nope');
    expect(error.message).toContain('hidden');
  });

  it('a valid configuration of the same classes starts (the checks are not too eager)', async () => {
    const { http } = await start(ModelRoutesModule.forRoot({ resources: [OwnerModel], controllers: [FirstOwnerController] }));
    await http().get('/owner-models').expect(200);
  });
});
