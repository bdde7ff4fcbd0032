import { Module } from '@nestjs/common';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Types, type Connection } from 'mongoose';
import type request from 'supertest';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { Magazine, Publisher, PublisherSchema } from '../../fixtures/extend-models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function registeredModelReferencesSpec(): void {
  /**
   * References to models that are not resources but are registered with Mongoose (by any module,
   * imported in any order): they get the forward route only. (A `ref` to a model registered nowhere
   * stops the app's start: startup-errors.e2e-spec.ts.)
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
      const magazine = (
        await http()
          .post('/magazine')
          .send({ title: 'Elle', publisher: String(publisher._id) })
          .expect(201)
      ).body;
      const response = await http().get(`/magazine/${magazine._id}/publisher`).expect(200);
      expect(response.body).toEqual({ _id: String(publisher._id), name: 'Hachette' });
    });
  });

  /** An array of references to a model that is not a resource: its `list` route reads that model. */
  @GeneratedResource()
  @Schema()
  class Anthology {
    @Prop({ required: true }) title!: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Publisher' }] }) publishers?: Types.ObjectId[];
  }

  describe('the search settings on the routes of a model that is not a resource', () => {
    it("GET /anthology/:anthology_id/publishers?limit=50 applies the module's maxLimit (forRootAsync's), as every search route does", async () => {
      const { http, connection } = await bootTestApp(engine, {
        imports: [MongooseModule.forFeature([{ name: Publisher.name, schema: PublisherSchema }])],
        modelRoutes: ModelRoutesModule.forRootAsync({ resources: [Anthology], useFactory: async () => ({ search: { maxLimit: 2 } }) }),
      });
      const publishers = await connection.model('Publisher').create([{ name: 'A' }, { name: 'B' }, { name: 'C' }, { name: 'D' }]);
      const anthology = (
        await http()
          .post('/anthology')
          .send({ title: 'Best of', publishers: publishers.map((doc: { _id: unknown }) => String(doc._id)) })
          .expect(201)
      ).body;
      const response = await http().get(`/anthology/${anthology._id}/publishers?limit=50`).expect(200);
      expect(response.body.status).toMatchObject({ search_count: 2, match_count: 4, counted: 'exact', limit: 2 });
      // And its default limit: a lower maximum lowers it.
      expect((await http().get(`/anthology/${anthology._id}/publishers`).expect(200)).body.status.limit).toBe(2);
    });
  });
}
