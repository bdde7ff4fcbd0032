/**
 * Issue 13, Scaling: a `readPreference` route option sends a read route's queries where it says
 * (secondaries of a replica set), and only that route's. The engine here is one server, where
 * every read preference reads from it; what this test sees is the read preference each query
 * carried, recorded by a Mongoose hook of the schema (an observation, not a stand-in).
 */
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import mongoose, { type Query } from 'mongoose';
import { GeneratedResource, ModelRoutesModule, type ModelRoutesConfigError } from '../../../src/index.js';
import { Entrepreneur } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function readPreferenceSpec(): void {
  @GeneratedResource({
    routes: { search: { readPreference: 'secondaryPreferred' }, searchPost: { readPreference: 'nearest' } },
    references: { owner: { reverse: { readPreference: 'secondaryPreferred' } } },
  })
  @Schema()
  class Shop {
    @Prop({ required: true }) name!: string;
    @Prop({ type: mongoose.Schema.Types.ObjectId, ref: 'Entrepreneur' }) owner?: mongoose.Types.ObjectId;
  }

  const ShopSchema = SchemaFactory.createForClass(Shop);
  /** `find:secondaryPreferred`, `findOne:default`: each query of the shops, with the mode it carried. */
  const seen: string[] = [];
  ShopSchema.pre(['find', 'findOne', 'countDocuments'], function (this: Query<unknown, unknown>) {
    const mode = (this.getOptions().readPreference as { mode?: string } | undefined)?.mode;
    seen.push(`${(this as unknown as { op: string }).op}:${mode ?? 'default'}`);
  });

  const engine = useEngine();
  let t: TestApp;
  let owner: string;
  let shop: string;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, { resource: Shop, schema: ShopSchema }] });
    owner = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
    shop = (await t.http().post('/shop').send({ name: 'Corner', owner }).expect(201)).body._id;
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    seen.length = 0;
  });

  // A full page (limit 1), so that the search counts its matches: a page that shows where they end needs no count query.
  it('a search with the option reads where it says, every query of it', async () => {
    expect((await t.http().get('/shops?name=Corner&limit=1').expect(200)).body.status.match_count).toBe(1);
    expect(seen.sort()).toEqual(['countDocuments:secondaryPreferred', 'find:secondaryPreferred']);
  });

  it('each route its own: the POST search reads from the nearest member', async () => {
    await t.http().post('/shops').send({ query: { name: 'Corner' }, limit: 1 }).expect(200);
    expect(seen.sort()).toEqual(['countDocuments:nearest', 'find:nearest']);
  });

  it('a reverse reference route with the option', async () => {
    expect((await t.http().get(`/user/${owner}/shops/owner?limit=1`).expect(200)).body.result).toHaveLength(1);
    expect(seen.sort()).toEqual(['countDocuments:secondaryPreferred', 'find:secondaryPreferred']);
  });

  it('a route without it reads as the connection says, as do writes', async () => {
    await t.http().get(`/shop/${shop}`).expect(200);
    await t.http().put(`/shop/${shop}`).send({ name: 'Corner 2' }).expect(200);
    expect(seen).toEqual(['findOne:default']);
  });

  describe('at startup', () => {
    function startupError(routes: Record<string, unknown>): ModelRoutesConfigError & { code: string } {
      @GeneratedResource({ routes })
      @Schema()
      class Stall {
        @Prop() name?: string;
      }
      try {
        ModelRoutesModule.forRoot({ resources: [Stall] });
      } catch (error) {
        return error as ModelRoutesConfigError & { code: string };
      }
      throw new Error('forRoot accepted the options');
    }

    it('refuses a readPreference on a route that writes', () => {
      const error = startupError({ update: { readPreference: 'secondary' } });
      expect(error.code).toBe('MR_CONFIG_INVALID_OPTION');
      expect(error.message).toContain('update writes; only the routes that read take a readPreference');
    });

    it('refuses a mode that does not exist', () => {
      const error = startupError({ search: { readPreference: 'anywhere' } });
      expect(error.code).toBe('MR_CONFIG_INVALID_OPTION');
      expect(error.message).toContain('search.readPreference must be one of primary, primaryPreferred, secondary, secondaryPreferred, nearest');
    });
  });
}
