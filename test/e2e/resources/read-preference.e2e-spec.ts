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
    references: { owner: { reverse: { readPreference: 'secondaryPreferred' }, expand: true, filter: true, expandReverse: 'shops' } },
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

  /**
   * `shops.find:secondaryPreferred`, `entrepreneurs.aggregate:default`: every operation a request
   * sends to any collection, as Mongoose hands it to the driver (its `operation-start` event, with
   * the options the driver gets), so the queries no schema hook sees count too: `$collStats`, the
   * expand and relation-filter queries on the other collection, the parent's lookup.
   */
  const operations: string[] = [];
  const record = ({ collectionName, method, params }: { collectionName: string; method: string; params: unknown[] }) => {
    const options = [...params].reverse().find((param) => param !== null && typeof param === 'object' && 'readPreference' in param) as
      { readPreference?: string | { mode?: string } } | undefined;
    const mode = typeof options?.readPreference === 'string' ? options.readPreference : options?.readPreference?.mode;
    operations.push(`${collectionName}.${method}:${mode ?? 'default'}`);
  };
  /** The operations of one request, after `operations` was emptied: what it sent, each once, sorted. */
  async function operationsOf(request: () => Promise<unknown>): Promise<string[]> {
    operations.length = 0;
    await request();
    return [...new Set(operations)].sort();
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, { resource: Shop, schema: ShopSchema }] });
    owner = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
    shop = (await t.http().post('/shop').send({ name: 'Corner', owner }).expect(201)).body._id;
    await t.http().post('/shop').send({ name: 'Kiosk', owner }).expect(201);
    t.connection.on('operation-start', record);
  });
  afterAll(() => {
    t?.connection.off('operation-start', record);
    return t?.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  // A full page (limit 1), so that the search counts its matches: a page that shows where they end needs no count query.
  it('a search with the option reads where it says, every query of it', async () => {
    expect((await t.http().get('/shops?name=Corner&limit=1').expect(200)).body.status.match_count).toBe(1);
    expect(seen.sort()).toEqual(['countDocuments:secondaryPreferred', 'find:secondaryPreferred']);
  });

  it('each route its own: the POST search reads from the nearest member', async () => {
    await t
      .http()
      .post('/shops')
      .send({ query: { name: 'Corner' }, limit: 1 })
      .expect(200);
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

  // Issue 26 item 5: "every query of that route", each kind the docs' Scaling section names, observed at the driver's door.
  describe('every query of a route with the option', () => {
    // Filtered: an unfiltered exact search takes its status.count from its match_count.
    it('the page, the exact match_count and the status.count of the collection', async () => {
      const sent = await operationsOf(() => t.http().get('/shops?name[ne]=x&limit=1').expect(200));
      expect(sent).toEqual(expect.arrayContaining(['shops.countDocuments:secondaryPreferred', 'shops.find:secondaryPreferred']));
      expect(sent.some((operation) => /^shops\.(aggregate|estimatedDocumentCount):secondaryPreferred$/.test(operation))).toBe(true);
      expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
    });

    it('an estimated count (a count bounded at estimateLimit, and the metadata count)', async () => {
      for (const path of ['/shops?name[ne]=x&limit=1', '/shops?limit=1']) {
        const sent = await operationsOf(() => t.http().get(path).set('Prefer', 'count=estimated').expect(200));
        expect(sent).toContain('shops.find:secondaryPreferred');
        expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
      }
    });

    it('the page after a cursor (keyset)', async () => {
      const first = (await t.http().get('/shops?sort=name&limit=1').expect(200)).body;
      const sent = await operationsOf(async () =>
        expect((await t.http().get(`/shops?sort=name&limit=1&after=${first.status.next}`).expect(200)).body.result[0].name).toBe('Kiosk'),
      );
      expect(sent).toContain('shops.find:secondaryPreferred');
      expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
    });

    it('the expand queries, forward and reverse, on the other collections', async () => {
      const sent = await operationsOf(async () => {
        const [found] = (await t.http().get('/shops?name=Kiosk&expand=owner.shops&limit=1').expect(200)).body.result;
        expect(found.owner.niceName).toBe('Ada');
        expect(found.owner.shops).toHaveLength(2);
      });
      expect(sent).toEqual(expect.arrayContaining(['entrepreneurs.find:secondaryPreferred', 'shops.find:secondaryPreferred']));
      expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
    });

    it('the query of a condition across a reference', async () => {
      const sent = await operationsOf(async () =>
        expect((await t.http().get('/shops?owner.niceName=Ada&limit=1').expect(200)).body.status.match_count).toBe(2),
      );
      expect(sent).toEqual(expect.arrayContaining(['entrepreneurs.find:secondaryPreferred', 'shops.find:secondaryPreferred']));
      expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
    });

    it("the reverse route's lookup of its parent", async () => {
      const sent = await operationsOf(() => t.http().get(`/user/${owner}/shops/owner?limit=1`).expect(200));
      expect(sent).toContain('shops.find:secondaryPreferred');
      expect(sent.filter((operation) => !operation.endsWith(':secondaryPreferred'))).toEqual([]);
    });

    it('a route without it: every operation reads as the connection says', async () => {
      const sent = await operationsOf(() => t.http().get(`/shop/${shop}?expand=owner`).expect(200));
      expect(sent).toEqual(['entrepreneurs.find:default', 'shops.findOne:default']);
    });
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
