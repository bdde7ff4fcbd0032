import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { ModelRoutesModule } from '../../src/index.js';
import { Pamphlet } from '../fixtures/extend-models.js';
import { FirstOwnerController, OwnerModel, Product } from '../fixtures/startup-models.js';
import { bootTestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';

/**
 * Start-up checks that need the app to start: a `ref` to a model registered nowhere stops it, and a
 * valid configuration of the classes the unit spec's errors use starts. (The errors forRoot throws
 * when it is called, without an app: test/unit/module/startup-errors.spec.ts.)
 */

const engine = useEngine();

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
  // With discriminators on its schema, forRoot refuses it (MR_CONFIG_UNSUPPORTED_SCHEMA, test/unit/module/startup-errors.spec.ts).
  const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Product] }) });
  await http().post('/product').send({ name: 'Dune', kind: 'Book' }).expect(201);
  expect((await http().get('/products').query({ kind: 'Book' }).expect(200)).body.result).toHaveLength(1);
});
