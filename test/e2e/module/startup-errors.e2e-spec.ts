import { Module, type Type } from '@nestjs/common';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { Pamphlet } from '../../fixtures/extend-models.js';
import { FirstOwnerController, OwnerModel, Product } from '../../fixtures/startup-models.js';
import { Invoice } from '../../fixtures/clinic-models.js';
import { bootTestApp } from '../../support/app.js';
import { itOnFerretDb, itOnMongoDb, useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function startupErrorsSpec(): void {
  /**
   * Start-up checks that need the app to start: a `ref` to a model registered nowhere stops it, and a
   * valid configuration of the classes the unit spec's errors use starts. (The errors forRoot throws
   * when it is called, without an app: test/unit/module/startup-errors.spec.ts.)
   */

  const engine = useEngine();

  /** The error that stops the start of an app serving `resources`, with its code checked; its message, for the test's own checks. */
  const startError = async (resources: Type[], code: string): Promise<string> => {
    const error = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources }) }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as { code?: string } | undefined)?.code).toBe(code);
    return (error as Error).message;
  };

  describe('a ref to a model registered nowhere', () => {
    it('fails the app startup with MR_CONFIG_UNKNOWN_REFERENCE, naming the class, the field and the model', async () => {
      let routes!: ReturnType<typeof ModelRoutesModule.forRoot>;
      // forRoot cannot know yet: the model could be registered by MongooseModule.forFeature elsewhere in the app.
      expect(() => {
        routes = ModelRoutesModule.forRoot({ resources: [Pamphlet] });
      }).not.toThrow();
      @Module({ imports: [MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('unknown_ref') }), routes] })
      class AppModule {}
      let error: unknown;
      try {
        const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
        // Booted by hand, outside bootTestApp and its OpenAPI contract check: this app must fail to start, so it answers no request.
        const app = moduleRef.createNestApplication({ logger: false });
        engine.beforeStop(() => app.close());
        await app.init();
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(Error);
      expect((error as { code?: string }).code).toBe('MR_CONFIG_UNKNOWN_REFERENCE');
      expect((error as Error).message).toContain('Pamphlet');
      expect((error as Error).message).toContain('ghost');
      expect((error as Error).message).toContain('Ghost');
    });
  });

  it('a valid configuration of the same classes starts (the checks are not too eager)', async () => {
    const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [OwnerModel], controllers: [FirstOwnerController] }) });
    await http().get('/owner-models').expect(200);
  });

  it('a resource with a discriminator key but no discriminators starts, and its key is an ordinary field', async () => {
    // With discriminators on its schema, forRoot serves its sub-types (test/e2e/resources/discriminators.e2e-spec.ts).
    const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Product] }) });
    await http().post('/product').send({ name: 'Dune', kind: 'Book' }).expect(201);
    expect((await http().get('/products').query({ kind: 'Book' }).expect(200)).body.result).toHaveLength(1);
  });

  describe('a Decimal128 field', () => {
    itOnFerretDb(
      'MongoDB stores Decimal128',
      'stops the start on FerretDB v1 with MR_CONFIG_UNSUPPORTED_TYPE, naming every such field at any depth',
      async () => {
        const message = await startError([Invoice], 'MR_CONFIG_UNSUPPORTED_TYPE');
        expect(message).toContain('Invoice.total, Invoice.lines.price: Decimal128 cannot be stored by FerretDB v1');
        expect(message).toContain('as a string, or as an integer of its smallest unit');
      },
    );

    itOnMongoDb('FerretDB v1 cannot store Decimal128', 'is stored and cast on MongoDB, in both spellings', async () => {
      const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Invoice] }) });
      expectError(await http().post('/invoice').send({ holder: 'x', total: 'twelve' }), 400, 'MR_VALIDATION_FAILED');
      const created = await http()
        .post('/invoice')
        .send({ holder: 'x', total: '100.10', lines: [{ price: '0.10' }] })
        .expect(201);
      expect(created.body).toMatchObject({ holder: 'x' });
    });
  });

  /**
   * A sub-type's own index: Mongoose builds it as a partial index on the discriminator key, which
   * FerretDB v1 cannot create, and the model's `init()` fails where no one sees it (a `unique` would
   * silently not hold). The base's own index, and sub-types without one, start.
   */
  describe("an index in a sub-type's own schema", () => {
    @Schema()
    class Fridge {
      @Prop({ required: true, unique: true }) serial!: string;
      @Prop({ index: true }) litres?: number;
    }
    @Schema()
    class Oven {
      @Prop() watts?: number;
    }
    @GeneratedResource({ discriminators: [Fridge, Oven] })
    @Schema({ discriminatorKey: 'kind' })
    class Appliance {
      @Prop({ required: true, index: true }) brand!: string;
    }
    @Schema()
    class Kettle {
      @Prop() litres?: number;
    }
    @GeneratedResource({ discriminators: [Kettle] })
    @Schema({ discriminatorKey: 'kind' })
    class SmallAppliance {
      @Prop({ required: true, index: true }) brand!: string;
    }

    itOnFerretDb(
      'MongoDB builds partial indexes',
      'stops the start on FerretDB v1 with MR_CONFIG_UNSUPPORTED_INDEX, naming each such field and the way out',
      async () => {
        const message = await startError([Appliance], 'MR_CONFIG_UNSUPPORTED_INDEX');
        expect(message).toContain('Appliance (sub-type Fridge).serial, Appliance (sub-type Fridge).litres: an index declared in a sub-type');
        expect(message).toContain('Declare the field and its index on the base schema');
        // The base's own index is not named: it is built on the base model, as any index.
        expect(message).not.toContain('brand');
      },
    );

    it('starts with an index on the base and none in the sub-types, and serves the sub-type', async () => {
      const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [SmallAppliance] }) });
      await http().post('/small-appliance').send({ kind: 'Kettle', brand: 'Acme', litres: 1.5 }).expect(201);
      expect((await http().get('/small-appliances').query({ brand: 'Acme' }).expect(200)).body.result).toEqual([
        expect.objectContaining({ kind: 'Kettle', brand: 'Acme', litres: 1.5 }),
      ]);
    });

    itOnMongoDb('FerretDB v1 cannot create partial indexes', "starts on MongoDB, and the sub-type's unique index holds", async () => {
      const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Appliance] }) });
      await http().post('/appliance').send({ kind: 'Fridge', brand: 'Acme', serial: 'F-1' }).expect(201);
      expectError(await http().post('/appliance').send({ kind: 'Fridge', brand: 'Other', serial: 'F-1' }), 409, 'MR_DUPLICATE_KEY');
    });
  });
}
