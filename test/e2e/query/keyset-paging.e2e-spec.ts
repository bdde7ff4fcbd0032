import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource } from '../../../src/index.js';
import { encodeCursor, LIBRARY_CURSOR_KEY } from '../../../src/repository/search-cursor.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { chooseFerretDbBackend } from '../../../scripts/mongo-engine.js';
import { isFerretDb, itOnMongoDb, useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function keysetPagingSpec(): void {
  /** Issue 26, item 1: keyset paging with `status.next` and `after` on the search and reverse routes. */
  const engine = useEngine();
  let t: TestApp;
  /** FerretDB on PostgreSQL, whose JSONB cannot hold U+0000: no stored document holds one. */
  const storesNoNul = !process.env.MONGODB_URI && isFerretDb() && chooseFerretDbBackend().backend === 'postgresql';

  /** Cursors made with its own secret: one made with the library's key is refused. */
  @GeneratedResource({ path: 'scribe', plural: 'scribes', search: { cursorSecret: 'scribes-own-secret-0123' } })
  @Schema()
  class Scribe {
    @Prop({ required: true }) name!: string;
  }

  @GeneratedResource({ path: 'tome', plural: 'tomes', references: { scribe: { filter: true } } })
  @Schema()
  class Tome {
    @Prop({ required: true }) title!: string;
    @Prop({ type: Types.ObjectId, ref: 'Scribe' }) scribe?: Types.ObjectId;
    @Prop() pages?: number;
    @Prop() published?: Date;
    @Prop() shelf?: string;
    @Prop({ select: false }) secret?: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Scribe' }] }) helpers?: Types.ObjectId[];
  }

  const ids: Record<string, string> = {};
  // Ties on `pages` (100 three times, 200 twice), missing and null values, two scribes.
  const PAGES = [100, 100, 100, 200, 200, undefined, null, 50, 75, 300, undefined, 120, 120, 10, 999, 5, 640];
  const TOMES = PAGES.map((pages, index) => ({
    title: `t${String(index).padStart(2, '0')}`,
    ...(pages !== undefined && { pages }),
    ...(index % 3 !== 0 && { published: new Date(Date.UTC(2020, index % 4, 1)) }),
    shelf: 'main',
    secret: `s${index}`,
  }));

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Scribe, Tome] });
    const [ada, bob] = await t.connection.model('Scribe').create([{ name: 'Ada' }, { name: 'Bob' }]);
    [ids.ada, ids.bob] = [String(ada._id), String(bob._id)];
    await t.connection.model('Tome').insertMany(TOMES.map((tome, index) => ({ ...tome, scribe: index % 2 ? ada._id : bob._id })));
  });
  afterAll(() => t?.close());

  type Envelope = {
    status: { next?: string; search_count: number; match_count: number; skip: number };
    result: Array<{ title: string } & Record<string, unknown>>;
  };

  /** Every page of a GET search, following `status.next` (at most 40 pages); the titles in order, and the pages' sizes. */
  async function walkGet(path: string, query: Record<string, string>): Promise<{ titles: string[]; sizes: number[]; matches: number[] }> {
    const titles: string[] = [];
    const sizes: number[] = [];
    const matches: number[] = [];
    let after: string | undefined;
    for (let page = 0; page < 40; page++) {
      const response = await t
        .http()
        .get(path)
        .query({ ...query, ...(after && { after }) })
        .expect(200);
      const body = response.body as Envelope;
      titles.push(...body.result.map((tome) => tome.title));
      sizes.push(body.status.search_count);
      matches.push(body.status.match_count);
      after = body.status.next;
      if (!after) return { titles, sizes, matches };
    }
    throw new Error('more than 40 pages');
  }

  /** The titles of one page holding every match, in the engine's own order. */
  async function allAtOnce(path: string, query: Record<string, string>): Promise<string[]> {
    const response = await t
      .http()
      .get(path)
      .query({ ...query, limit: '100' })
      .expect(200);
    expect((response.body as Envelope).status.next).toBeUndefined();
    return (response.body as Envelope).result.map((tome) => tome.title);
  }

  describe('walking the pages with status.next', () => {
    it.each([
      ['ascending, with ties and missing values', 'pages'],
      ['descending, with ties and missing values', '-pages'],
      ['by a date, then a string', '-published,title'],
      ['by _id alone', '_id'],
      ['by _id descending', '-_id'],
    ])('gives every document exactly once, in the order of the sort: %s', async (_name, sort) => {
      const expected = await allAtOnce('/tomes', { sort });
      expect(expected).toHaveLength(TOMES.length);
      const { titles, sizes, matches } = await walkGet('/tomes', { sort, limit: '4' });
      expect(titles).toEqual(expected);
      expect(sizes).toEqual([4, 4, 4, 4, 1]);
      // The last page shows where the matches end, but not how many came before it: the count is the search's on every page.
      expect(matches).toEqual([17, 17, 17, 17, 17]);
    });

    it('has no next on the last page, nor on an unsorted search', async () => {
      const unsorted = await t.http().get('/tomes?limit=3').expect(200);
      expect(unsorted.body.status).not.toHaveProperty('next');
      const last = await t.http().get('/tomes?sort=title&limit=17').expect(200);
      expect(last.body.status).not.toHaveProperty('next');
      const full = await t.http().get('/tomes?sort=title&limit=16').expect(200);
      expect(full.body.status.next).toEqual(expect.any(String));
    });

    it('keeps the filter and the counts of the whole search on every page', async () => {
      const first = await t.http().get('/tomes?pages[gte]=100&sort=pages&limit=3').expect(200);
      const second = await t.http().get('/tomes').query({ 'pages[gte]': '100', sort: 'pages', limit: '3', after: first.body.status.next }).expect(200);
      expect(second.body.status).toMatchObject({ match_count: 10, search_count: 3, skip: 0 });
      expect(second.body.result.map((tome: { pages: number }) => tome.pages)).toEqual([120, 120, 200]);
    });

    it('pages a POST search, with select leaving out the sort field (read for the cursor, not answered)', async () => {
      const expected = await allAtOnce('/tomes', { sort: '-pages' });
      const titles: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page++) {
        const response = await t
          .http()
          .post('/tomes')
          .send({ sort: { pages: -1 }, select: ['title'], limit: 5, ...(after && { after }) })
          .expect(200);
        for (const tome of response.body.result) expect(Object.keys(tome).sort()).toEqual(['_id', 'title']);
        titles.push(...response.body.result.map((tome: { title: string }) => tome.title));
        after = response.body.status.next;
        if (!after) break;
      }
      expect(titles).toEqual(expected);
    });

    it('takes a GET page’s cursor in the POST search of the same sort and filter', async () => {
      const first = await t.http().get('/tomes?sort=title&limit=2').expect(200);
      const second = await t.http().post('/tomes').send({ sort: 'title', limit: 2, after: first.body.status.next }).expect(200);
      expect(second.body.result.map((tome: { title: string }) => tome.title)).toEqual(['t02', 't03']);
    });

    it('pages the reverse routes, GET and POST, within their parent', async () => {
      const path = `/scribe/${ids.ada}/tomes/scribe`;
      const expected = await allAtOnce(path, { sort: 'pages' });
      expect(expected).toHaveLength(8);
      expect((await walkGet(path, { sort: 'pages', limit: '3' })).titles).toEqual(expected);
      const first = await t.http().post(path).send({ sort: 'pages', limit: 3 }).expect(200);
      const second = await t.http().post(path).send({ sort: 'pages', limit: 3, after: first.body.status.next }).expect(200);
      expect([...first.body.result, ...second.body.result].map((tome: { title: string }) => tome.title)).toEqual(expected.slice(0, 6));
    });

    it('stays on a condition across a reference whose matches change between pages (the cursor is bound to the filter as sent)', async () => {
      const query = { 'scribe.name[in]': 'Ada,Cy', sort: 'title', limit: '3' };
      const first = await t.http().get('/tomes').query(query).expect(200);
      expect(first.body.result.map((tome: { title: string }) => tome.title)).toEqual(['t01', 't03', 't05']);
      // A new scribe that the condition names: the ids it resolves to differ on the next page.
      const cy = await t.connection.model('Scribe').create({ name: 'Cy' });
      await t.connection.model('Tome').create({ title: 't06b', scribe: cy._id, shelf: 'other' });
      try {
        const second = await t
          .http()
          .get('/tomes')
          .query({ ...query, after: first.body.status.next })
          .expect(200);
        expect(second.body.result.map((tome: { title: string }) => tome.title)).toEqual(['t06b', 't07', 't09']);
      } finally {
        await t.connection.model('Tome').deleteOne({ title: 't06b' });
        await t.connection.model('Scribe').deleteOne({ _id: cy._id });
      }
    });
  });

  describe('the list of an array of references', () => {
    it('pages by cursor; a change to the array ends the walk with a 400 MR_INVALID_CURSOR', async () => {
      const Tomes = t.connection.model('Tome');
      const tome = await Tomes.create({ title: 'h00', shelf: 'helped', helpers: [ids.bob, ids.ada] });
      try {
        const first = await t.http().get(`/tome/${tome._id}/helpers?sort=name&limit=1`).expect(200);
        expect(first.body.result.map((scribe: { name: string }) => scribe.name)).toEqual(['Ada']);
        const second = await t.http().get(`/tome/${tome._id}/helpers`).query({ sort: 'name', limit: '1', after: first.body.status.next }).expect(200);
        expect(second.body.result.map((scribe: { name: string }) => scribe.name)).toEqual(['Bob']);
        expect(second.body.status).not.toHaveProperty('next');
        await Tomes.updateOne({ _id: tome._id }, { $pull: { helpers: ids.bob } });
        expectError(
          await t.http().get(`/tome/${tome._id}/helpers`).query({ sort: 'name', limit: '1', after: first.body.status.next }),
          400,
          'MR_INVALID_CURSOR',
        );
      } finally {
        await Tomes.deleteOne({ _id: tome._id });
      }
    });
  });

  describe('inserts and deletes between pages', () => {
    it('gives every document that stays exactly once, none twice, and those inserted after the cursor', async () => {
      const Tomes = t.connection.model('Tome');
      await Tomes.insertMany(
        Array.from({ length: 12 }, (_, index) => ({ title: `c${String(index).padStart(2, '0')}`, pages: Math.floor(index / 3) * 10, shelf: 'churn' })),
      );
      const query = { shelf: 'churn', sort: '-pages,title', limit: '4' };
      const seen: string[] = [];
      const first = await t.http().get('/tomes').query(query).expect(200);
      seen.push(...first.body.result.map((tome: { title: string }) => tome.title));
      expect(seen).toEqual(['c09', 'c10', 'c11', 'c06']);
      // Deleted: one seen (c10) and two not yet seen (c07, c02); inserted: one before the cursor (ahead of
      // c06 in the order: not to be seen), one tied with the cursor's key after it, and one at the end.
      await Tomes.deleteMany({ title: { $in: ['c10', 'c07', 'c02'] } });
      await Tomes.insertMany([
        { title: 'c05a', pages: 30, shelf: 'churn' },
        { title: 'c06a', pages: 20, shelf: 'churn' },
        { title: 'c99', shelf: 'churn' },
      ]);
      let after: string | undefined = first.body.status.next;
      for (let page = 0; after && page < 10; page++) {
        const response = await t
          .http()
          .get('/tomes')
          .query({ ...query, after })
          .expect(200);
        seen.push(...response.body.result.map((tome: { title: string }) => tome.title));
        after = response.body.status.next;
      }
      expect(seen).toEqual(['c09', 'c10', 'c11', 'c06', 'c06a', 'c08', 'c03', 'c04', 'c05', 'c00', 'c01', 'c99']);
      await Tomes.deleteMany({ shelf: 'churn' });
    });
  });

  describe('refused cursors', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await t.http().get('/tomes?sort=pages&limit=2').expect(200)).body.status.next;
    });

    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

    it.each([
      ['a changed payload', (c: string) => flip(c, 3)],
      ['a changed MAC', (c: string) => flip(c, c.length - 2)],
      ['no MAC', (c: string) => c.split('.')[0]],
      ['not a cursor', () => 'abc'],
      ['empty', () => ''],
      ['a NUL character after it', (c: string) => `${c}\u0000`],
    ])('%s: 400 MR_INVALID_CURSOR naming after', async (_name, tamper) => {
      const response = await t
        .http()
        .get('/tomes')
        .query({ sort: 'pages', limit: '2', after: tamper(cursor) });
      expectError(response, 400, 'MR_INVALID_CURSOR');
      expect(response.body.details).toEqual([{ path: 'after', message: expect.any(String) }]);
    });

    it.each([
      ['another sort', '/tomes', { sort: '-pages' }],
      ['another sort, the same first key', '/tomes', { sort: 'pages,title' }],
      ['no sort', '/tomes', {}],
      ['another filter', '/tomes', { sort: 'pages', shelf: 'main' }],
      ['another resource', '/scribes', { sort: 'pages' }],
      ['a reverse route', () => `/scribe/${ids.ada}/tomes/scribe`, { sort: 'pages' }],
    ] as const)('a cursor of the search sorted by pages, sent with %s: 400 MR_INVALID_CURSOR', async (_name, path, query) => {
      const url = typeof path === 'function' ? path() : path;
      // Scribes have no `pages`: their sort is refused first; the cursor is checked against a sort they have.
      const sent = url === '/scribes' ? { sort: 'name' } : query;
      const response = await t
        .http()
        .get(url)
        .query({ ...sent, after: cursor });
      expectError(response, 400, 'MR_INVALID_CURSOR');
    });

    it('a cursor of one reverse route parent, sent to another: 400 MR_INVALID_CURSOR; GET and POST', async () => {
      const first = await t.http().get(`/scribe/${ids.ada}/tomes/scribe?sort=title&limit=2`).expect(200);
      expectError(await t.http().get(`/scribe/${ids.bob}/tomes/scribe`).query({ sort: 'title', after: first.body.status.next }), 400, 'MR_INVALID_CURSOR');
      expectError(await t.http().post(`/scribe/${ids.bob}/tomes/scribe`).send({ sort: 'title', after: first.body.status.next }), 400, 'MR_INVALID_CURSOR');
    });

    it('a cursor in a POST body that is not a string: 400 MR_INVALID_CURSOR', async () => {
      expectError(await t.http().post('/tomes').send({ sort: 'pages', after: 12 }), 400, 'MR_INVALID_CURSOR');
    });

    it('after with skip: 400 MR_INVALID_QUERY naming after, GET and POST', async () => {
      const get = await t.http().get('/tomes').query({ sort: 'pages', skip: '2', after: cursor });
      expectError(get, 400, 'MR_INVALID_QUERY');
      expect(get.body.details).toEqual([{ path: 'after', message: expect.any(String) }]);
      expectError(await t.http().post('/tomes').send({ sort: 'pages', skip: 2, after: cursor }), 400, 'MR_INVALID_QUERY');
    });

    it(
      'a forged cursor (the library’s key is public) whose values its fields cannot hold: 400 MR_INVALID_CURSOR; a well-formed one is only ' + 'a position',
      async () => {
        const binding = { resource: 'Tome', sort: { pages: 1 as const, _id: 1 as const }, filter: {} };
        const forged = encodeCursor(['many', new Types.ObjectId()], binding, LIBRARY_CURSOR_KEY);
        expectError(await t.http().get('/tomes').query({ sort: 'pages', after: forged }), 400, 'MR_INVALID_CURSOR');
        // A well-formed forgery is only a position in the order: the page after it, of what the client may read.
        const position = encodeCursor([200, new Types.ObjectId('ffffffffffffffffffffffff')], binding, LIBRARY_CURSOR_KEY);
        const response = await t.http().get('/tomes').query({ sort: 'pages', after: position }).expect(200);
        expect(response.body.result.map((tome: { pages: number }) => tome.pages)).toEqual([300, 640, 999]);
        expect(response.body.result[0]).not.toHaveProperty('secret');
      },
    );

    it.each([
      ['GET', (after: string) => t.http().get('/tomes').query({ sort: 'title', after })],
      ['POST', (after: string) => t.http().post('/tomes').send({ sort: 'title', after })],
    ] as const)(
      'a forged cursor whose sort value holds a NUL character: 400 MR_INVALID_CURSOR naming after, as every NUL a client sends (%s)',
      async (_name, send) => {
        // The library's key is public: a client can sign any values, as a cursor of this very search.
        const binding = { resource: 'Tome', sort: { title: 1 as const, _id: 1 as const }, filter: {} };
        const forged = encodeCursor(['t0\u00001', new Types.ObjectId()], binding, LIBRARY_CURSOR_KEY);
        const response = await send(forged);
        expectError(response, 400, 'MR_INVALID_CURSOR');
        expect(response.body.details).toEqual([{ path: 'after', message: expect.stringContaining('NUL character (U+0000)') }]);
      },
    );

    it('with search.cursorSecret, a forged cursor whose sort value holds a NUL character is refused by its MAC first', async () => {
      const forged = encodeCursor(['A\u0000', new Types.ObjectId(ids.ada)], { resource: 'Scribe', sort: { name: 1, _id: 1 }, filter: {} }, LIBRARY_CURSOR_KEY);
      const response = await t.http().get('/scribes').query({ sort: 'name', after: forged });
      expectError(response, 400, 'MR_INVALID_CURSOR');
      expect(response.body.message).toMatch(/belongs to another search .* or was altered/);
    });

    // Issue 41, item 5: the library refuses U+0000 in every body, but another writer may store it where the engine can (MongoDB).
    itOnMongoDb(
      'FerretDB v1 on PostgreSQL cannot store U+0000 (see the test below)',
      'a page that ends on a stored sort value holding a NUL character is answered; its status.next is a 400 MR_INVALID_CURSOR, never a 5xx',
      async () => {
        const Tomes = t.connection.model('Tome');
        await Tomes.collection.insertMany([
          { title: 'n\u0000a', shelf: 'nul' },
          { title: 'nb', shelf: 'nul' },
        ]);
        try {
          const first = await t.http().get('/tomes').query({ shelf: 'nul', sort: 'title', limit: '1' }).expect(200);
          expect(first.body.result.map((tome: { title: string }) => tome.title)).toEqual(['n\u0000a']);
          for (const response of [
            await t.http().get('/tomes').query({ shelf: 'nul', sort: 'title', limit: '1', after: first.body.status.next }),
            await t
              .http()
              .post('/tomes')
              .send({ query: { shelf: 'nul' }, sort: 'title', limit: 1, after: first.body.status.next }),
          ]) {
            expectError(response, 400, 'MR_INVALID_CURSOR');
            expect(response.body.details).toEqual([{ path: 'after', message: expect.stringContaining('NUL character (U+0000)') }]);
          }
        } finally {
          await Tomes.collection.deleteMany({ shelf: 'nul' });
        }
      },
    );

    // The engine's refusal is what makes the forged cursor above the only way a NUL reaches a cursor on this backend.
    (storesNoNul ? it : it.skip)(
      `no page ends on a stored sort value holding a NUL character: the engine does not store one${storesNoNul ? '' : ' [FerretDB on PostgreSQL only]'}`,
      async () => {
        const Tomes = t.connection.model('Tome');
        await expect(Tomes.collection.insertOne({ title: 'n\u0000a', shelf: 'nul' })).rejects.toThrow(/unsupported Unicode escape sequence/);
        expect(await Tomes.collection.countDocuments({ shelf: 'nul' })).toBe(0);
      },
    );

    it('with search.cursorSecret, a cursor made with the library’s key is refused', async () => {
      const own = await t.http().get('/scribes?sort=name&limit=1').expect(200);
      const second = await t.http().get('/scribes').query({ sort: 'name', limit: '1', after: own.body.status.next }).expect(200);
      expect(second.body.result.map((scribe: { name: string }) => scribe.name)).toEqual(['Bob']);
      const forged = encodeCursor(['Ada', new Types.ObjectId(ids.ada)], { resource: 'Scribe', sort: { name: 1, _id: 1 }, filter: {} }, LIBRARY_CURSOR_KEY);
      expectError(await t.http().get('/scribes').query({ sort: 'name', after: forged }), 400, 'MR_INVALID_CURSOR');
    });
  });
}
