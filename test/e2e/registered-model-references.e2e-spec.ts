import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import type request from 'supertest';
import { ModelRoutesModule } from '../../src/index.js';
import { Magazine, Pamphlet, Publisher, PublisherSchema } from '../fixtures/extend-models.js';
import { bootTestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';
import { expectError, expectNoRoute } from '../support/expect-error.js';

/**
 * References to models that are not resources: registered with Mongoose (by any module, imported
 * in any order) they get the forward route only; registered nowhere, they stop the app's start.
 */

const engine = useEngine();

describe('a ref to a model registered with Mongoose but not a resource', () => {
  let http: () => ReturnType<typeof request>;
  let connection: Connection;
  let publisher: { _id: string };
  let magazine: { _id: string };

  beforeAll(async () => {
    ({ http, connection } = await bootTestApp(engine, {
      imports: [MongooseModule.forFeature([{ name: Publisher.name, schema: PublisherSchema }])],
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Magazine] }),
    }));
  });

  beforeEach(async () => {
    await Promise.all(Object.values(connection.models).map((model) => model.deleteMany({})));
    const doc = await connection.model('Publisher').create({ name: 'Condé', taxId: 'FR-123' });
    publisher = { _id: String(doc._id) };
    magazine = (await http().post('/magazine').send({ title: 'Vogue', publisher: publisher._id }).expect(201)).body;
  });

  it('GET /magazine/:magazine_id/publisher returns the publisher, without select:false fields and __v', async () => {
    const response = await http().get(`/magazine/${magazine._id}/publisher`).expect(200);
    expect(response.body).toEqual({ _id: publisher._id, name: 'Condé' });
  });

  it('GET /magazine/:magazine_id/publisher answers 404 MR_REFERENCE_BROKEN once the publisher is deleted', async () => {
    await connection.model('Publisher').deleteMany({});
    expectError(await http().get(`/magazine/${magazine._id}/publisher`), 404, 'MR_REFERENCE_BROKEN');
  });

  it.each(['get', 'post'] as const)('%s /publisher/:id/magazines/publisher does not exist', async (method) => {
    expectNoRoute(await http()[method](`/publisher/${publisher._id}/magazines/publisher`));
  });

  it('the publisher gets no routes of its own', async () => {
    expectNoRoute(await http().get(`/publisher/${publisher._id}`));
    expectNoRoute(await http().get('/publishers'));
  });
});

describe('a ref to a model registered by a feature module imported after ModelRoutesModule', () => {
  // Regression: the target repository was built while Nest created the providers, before the
  // feature module had registered Publisher, so the app refused to start (and, in this test,
  // the connection opened before the failure was never closed: Jest did not exit).
  @Module({ imports: [MongooseModule.forFeature([{ name: Publisher.name, schema: PublisherSchema }])] })
  class PublishersModule {}

  it('starts, and the reference route reads the publisher', async () => {
    const { http, connection } = await bootTestApp(engine, {
      imports: [ModelRoutesModule.forRoot({ resources: [Magazine] }), PublishersModule],
    });
    const publisher = await connection.model('Publisher').create({ name: 'Hachette', taxId: 'FR-456' });
    const magazine = (await http().post('/magazine').send({ title: 'Elle', publisher: String(publisher._id) }).expect(201)).body;
    const response = await http().get(`/magazine/${magazine._id}/publisher`).expect(200);
    expect(response.body).toEqual({ _id: String(publisher._id), name: 'Hachette' });
  });
});

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
