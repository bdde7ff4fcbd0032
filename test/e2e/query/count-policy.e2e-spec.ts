import { Prop, Schema } from '@nestjs/mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function countPolicySpec(): void {
  /** Issue 26, item 2: `Prefer: count=exact|estimated|none`, `search.count`, `status.counted`. */
  const engine = useEngine();
  let t: TestApp;
  let owner: string;
  /** The count queries (`countDocuments`: an aggregate that groups) the app's connection sent since the last reset, by their `$limit` (0: none). */
  let countQueries: number[] = [];

  /** A resource that estimates by default, with a low bound. */
  @GeneratedResource({ search: { count: 'estimated', estimateLimit: 5 } })
  @Schema()
  class Ticket {
    @Prop({ required: true }) state!: string;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Ticket] }, { monitorCommands: true });
    t.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      const pipeline = event.commandName === 'aggregate' ? (event.command.pipeline as Array<Record<string, unknown>>) : [];
      if (!pipeline.some((stage) => '$group' in stage)) return;
      const limit = pipeline.find((stage) => '$limit' in stage)?.$limit;
      countQueries.push(typeof limit === 'number' ? limit : 0);
    });
    owner = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
    await t.connection.model('Company').insertMany(Array.from({ length: 25 }, (_, n) => ({ niceName: `c${n}`, employees: n, ...(n < 7 ? { owner } : {}) })));
    await t.connection.model('Ticket').insertMany(Array.from({ length: 12 }, (_, n) => ({ state: n < 10 ? 'open' : 'closed' })));
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    countQueries = [];
  });

  describe('exact (the default)', () => {
    it('counts a full page with a count query, and says so: counted exact', async () => {
      const response = await t.http().get('/companies?limit=10').expect(200);
      expect(response.body.status).toEqual({ count: 25, search_count: 10, match_count: 25, counted: 'exact', limit: 10, skip: 0 });
      expect(countQueries).toEqual([0]);
      expect(response.headers['preference-applied']).toBeUndefined();
    });

    it('sends its count beside the page, as a hand-written search does, whatever the page shows', async () => {
      expect((await t.http().get('/companies?limit=30').expect(200)).body.status).toEqual({
        count: 25,
        search_count: 25,
        match_count: 25,
        counted: 'exact',
        limit: 30,
        skip: 0,
      });
      expect((await t.http().get('/companies?limit=10&skip=20').expect(200)).body.status).toEqual({
        count: 25,
        search_count: 5,
        match_count: 25,
        counted: 'exact',
        limit: 10,
        skip: 20,
      });
      expect((await t.http().get('/companies?employees[gte]=20').expect(200)).body.status).toEqual({
        count: 25,
        search_count: 5,
        match_count: 5,
        counted: 'exact',
        limit: 20,
        skip: 0,
      });
      expect(
        (
          await t
            .http()
            .post('/companies')
            .send({ query: { employees: { $lt: 3 } } })
            .expect(200)
        ).body.status,
      ).toMatchObject({ match_count: 3, counted: 'exact' });
      expect(countQueries).toEqual([0, 0, 0, 0]);
    });

    it('an estimate takes the number from a page that shows where the matches end, without a count query', async () => {
      const estimated = (path: string) => t.http().get(path).set('Prefer', 'count=estimated').expect(200);
      expect((await estimated('/companies?employees[gte]=20')).body.status).toEqual({
        count: 25,
        search_count: 5,
        match_count: 5,
        counted: 'exact',
        limit: 20,
        skip: 0,
      });
      expect((await estimated('/companies?employees[gte]=5&limit=10&skip=15')).body.status).toMatchObject({
        search_count: 5,
        match_count: 20,
        counted: 'exact',
      });
      expect(countQueries).toEqual([]);
    });

    it('counts a page past the end, which does not show how many came before it', async () => {
      expect((await t.http().get('/companies?skip=40').expect(200)).body.status).toEqual({
        count: 25,
        search_count: 0,
        match_count: 25,
        counted: 'exact',
        limit: 20,
        skip: 40,
      });
      expect(countQueries).toEqual([0]);
    });
  });

  describe('Prefer: count=none', () => {
    it('counts nothing: no match_count, counted none, count from the metadata, Preference-Applied', async () => {
      const response = await t.http().get('/companies?limit=10&employees[gte]=5').set('Prefer', 'count=none').expect(200);
      expect(response.body.status).toEqual({ count: 25, search_count: 10, counted: 'none', limit: 10, skip: 0 });
      expect(response.headers['preference-applied']).toBe('count=none');
      const posted = await t.http().post('/companies').set('Prefer', 'count=none').send({ limit: 3 }).expect(200);
      expect(posted.body.status).toEqual({ count: 25, search_count: 3, counted: 'none', limit: 3, skip: 0 });
      expect(countQueries).toEqual([]);
    });

    it('on the reverse routes too, which still tell a missing parent (404) from one without children', async () => {
      const reverse = await t.http().get(`/user/${owner}/companies/owner?limit=2`).set('Prefer', 'count=none').expect(200);
      expect(reverse.body.status).toEqual({ count: 25, search_count: 2, counted: 'none', limit: 2, skip: 0 });
      const posted = await t.http().post(`/user/${owner}/companies/owner`).set('Prefer', 'count=none').send({ limit: 2 }).expect(200);
      expect(posted.headers['preference-applied']).toBe('count=none');
      expect(countQueries).toEqual([]);
      const lonely = (await t.http().post('/user').send({ niceName: 'Lonely' }).expect(201)).body._id;
      expect((await t.http().get(`/user/${lonely}/companies/owner`).set('Prefer', 'count=none').expect(200)).body.status).toMatchObject({
        search_count: 0,
        counted: 'none',
      });
      expectError(await t.http().get('/user/0123456789abcdef01234567/companies/owner').set('Prefer', 'count=none'), 404, 'MR_NOT_FOUND');
    });
  });

  describe('Prefer: count=estimated', () => {
    it('answers an unfiltered search from the collection metadata, without a count query', async () => {
      const response = await t.http().get('/companies?limit=10').set('Prefer', 'count=estimated').expect(200);
      expect(response.body.status).toEqual({ count: 25, search_count: 10, match_count: 25, counted: 'estimated', limit: 10, skip: 0 });
      expect(response.headers['preference-applied']).toBe('count=estimated');
      expect(countQueries).toEqual([]);
    });

    it("counts a filtered search up to the resource's estimateLimit: exact below it, the bound past it", async () => {
      // Ticket: search: { count: 'estimated', estimateLimit: 5 }, 10 open and 2 closed.
      expect((await t.http().get('/tickets?state=open&limit=2').expect(200)).body.status).toEqual({
        count: 12,
        search_count: 2,
        match_count: 5,
        counted: 'estimated',
        limit: 2,
        skip: 0,
      });
      expect(countQueries).toEqual([6]);
      expect((await t.http().get('/tickets?state=open&limit=2&skip=6').expect(200)).body.status).toMatchObject({ match_count: 8, counted: 'estimated' });
      expect((await t.http().get('/tickets?state=closed&limit=1').expect(200)).body.status).toMatchObject({ match_count: 2, counted: 'exact' });
      expect((await t.http().get('/tickets?state=open&limit=2').set('Prefer', 'count=exact').expect(200)).body.status).toMatchObject({
        match_count: 10,
        counted: 'exact',
      });
      expect(countQueries).toEqual([6, 6, 6, 0]);
    });

    it("takes PostgREST's planned as estimated, among other preferences, and names what it applied", async () => {
      const response = await t.http().get('/companies?limit=5').set('Prefer', 'respond-async, Count="planned"; strict').expect(200);
      expect(response.body.status).toMatchObject({ match_count: 25, counted: 'estimated' });
      expect(response.headers['preference-applied']).toBe('count=estimated');
      const other = await t.http().get('/companies?limit=5').set('Prefer', 'return=minimal').expect(200);
      expect(other.body.status).toMatchObject({ match_count: 25, counted: 'exact' });
      expect(other.headers['preference-applied']).toBeUndefined();
    });
  });

  it('refuses a count it does not give with a 400 naming Prefer, on every search route', async () => {
    for (const send of [
      () => t.http().get('/companies').set('Prefer', 'count=maybe'),
      () => t.http().post('/companies').set('Prefer', 'count').send({}),
      // RFC 7240: of a repeated preference, the first counts.
      () => t.http().get(`/user/${owner}/companies/owner`).set('Prefer', 'count=nope, count=exact'),
    ]) {
      const response = await send();
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details).toEqual([{ path: 'Prefer', message: expect.stringContaining('count=exact') }]);
    }
    // A route that does not search does not read it.
    await t.http().get(`/user/${owner}`).set('Prefer', 'count=maybe').expect(200);
  });

  it('refuses a search.count or estimateLimit it does not know when the module is defined', () => {
    for (const search of [{ count: 'sometimes' }, { estimateLimit: 0 }]) {
      expect(() => ModelRoutesModule.forRoot({ resources: [Entrepreneur], search: search as never })).toThrow(
        expect.objectContaining({ code: 'MR_CONFIG_INVALID_OPTION', message: expect.stringContaining(Object.keys(search)[0]!) }),
      );
    }
  });
}
