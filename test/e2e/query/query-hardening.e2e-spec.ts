/**
 * Searches an attacker sent (issue 9, findings A1, A2, A3, A7, A8): costly regular expressions
 * are refused and every query is bounded in time; a field that holds a hidden one cannot be
 * compared or sorted as a whole, nor searched through `$elemMatch`; BSON type markers, a
 * parameter given twice, and enum values under any operator are checked.
 */
import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { Article, Author, Tag } from '../../fixtures/blog-models.js';
import { SEED_IDS, seedFixtureData } from '../../fixtures/seed-data.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { isFerretDb, itOnMongoDb, useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function queryHardeningSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Account, Author, Tag, Article] });
    await seedFixtureData(t.connection);
    await t.connection.model('Article').create([
      { slug: 'one', title: 'One', status: 'draft', meta: { public: 'pub', token: 'tok-1', views: 1 }, lines: [{ text: 'a', pin: '1111' }] },
      { slug: 'two', title: 'Two', status: 'published', meta: { public: 'pub', token: 'tok-2', views: 2 }, lines: [{ text: 'b', pin: '2222' }] },
    ]);
  });
  afterAll(() => t?.close());

  async function expectQueryRefused(send: () => PromiseLike<unknown>, code: string, path: string): Promise<Parameters<typeof expectError>[0]> {
    const response = (await send()) as Parameters<typeof expectError>[0];
    expectError(response, 400, code);
    expect(response.body.details[0].path).toBe(path);
    return response;
  }

  describe('regular expressions are bounded in cost', () => {
    beforeAll(async () => {
      // Long strings make a costly pattern take seconds per document on the engine.
      const long = 'a'.repeat(90_000);
      await t.connection.model('Company').create([1, 2, 3].map((n) => ({ niceName: `${long}${n}`, employees: n })));
    });

    it.each([
      ['.{0,1000}.{0,1000}.{0,1000}x', 'query.niceName.$regex'],
      ['(a|a)*b', 'query.niceName.$regex'],
      ['(a+)+b', 'query.niceName.$regex'],
      ['(.*)*x', 'query.niceName.$regex'],
      ['a{1000}', 'query.niceName.$regex'],
      ['(a)\\1', 'query.niceName.$regex'],
    ])('refuses %j before it reaches the database', async (pattern, path) => {
      const response = await expectQueryRefused(
        () =>
          t
            .http()
            .post('/companies')
            .send({ query: { niceName: { $regex: pattern } } }),
        'MR_INVALID_QUERY',
        path,
      );
      expect(response.body.message).toContain('too costly');
    });

    it('refuses it on the GET form and under $not on a reverse route too', async () => {
      await expectQueryRefused(
        () => t.http().get(`/companies?niceName[regex]=${encodeURIComponent('.{0,1000}.{0,1000}x')}`),
        'MR_INVALID_QUERY',
        'query.niceName.$regex',
      );
      await expectQueryRefused(
        () =>
          t
            .http()
            .post(`/user/${SEED_IDS.ADA}/companies/owner`)
            .send({ query: { niceName: { $not: { $regex: '(a|a)*b' } } } }),
        'MR_INVALID_QUERY',
        'query.niceName.$not.$regex',
      );
    });

    it('answers a pattern that is not a regular expression with MR_INVALID_VALUE, as the database would', async () => {
      const response = await expectQueryRefused(
        () =>
          t
            .http()
            .post('/companies')
            .send({ query: { niceName: { $regex: '[' } } }),
        'MR_INVALID_VALUE',
        'query.niceName.$regex',
      );
      expect(response.body.message).toContain('not a valid regular expression');
    });

    it('runs ordinary patterns', async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({ query: { niceName: { $regex: '^ac', $options: 'i' } } })
        .expect(200);
      expect(response.body.result.map((company: { niceName: string }) => company.niceName)).toEqual(['Acme']);
    });
  });

  describe('every query is bounded in time: maxTimeMS', () => {
    let slow: TestApp;
    beforeAll(async () => {
      slow = await createTestApp(engine, { resources: [Entrepreneur, Company], search: { maxTimeMS: 1 } });
      const long = 'b'.repeat(20_000);
      await slow.connection.model('Company').insertMany(Array.from({ length: 300 }, (_, n) => ({ niceName: `${long}${n}` })));
    });
    afterAll(() => slow?.close());

    it('answers a search that runs over its time limit with a 422 MR_QUERY_TIMEOUT', async () => {
      // An affordable pattern, but a scan of 6 MB takes longer than 1 ms.
      const response = await slow
        .http()
        .post('/companies')
        .send({ query: { niceName: { $regex: 'bz' } } });
      expectError(response, 422, 'MR_QUERY_TIMEOUT');
    });
  });

  describe('a field that holds a hidden one cannot be compared or sorted as a whole', () => {
    it.each([
      ['an object literal', { meta: { public: 'pub', token: 'tok-1' } }, 'query.meta'],
      ['$eq', { meta: { $eq: { public: 'pub', token: 'tok-1' } } }, 'query.meta.$eq'],
      ['$ne', { meta: { $ne: { public: 'pub', token: 'tok-1' } } }, 'query.meta.$ne'],
      ['$in', { meta: { $in: [{ public: 'pub', token: 'tok-1' }] } }, 'query.meta.$in.0'],
      ['$gt', { meta: { $gt: { public: 'pub', token: 'tok-0' } } }, 'query.meta.$gt'],
      ['an array literal of sub-documents', { lines: [{ text: 'a', pin: '1111' }] }, 'query.lines'],
      ['$all on the array', { lines: { $all: [{ text: 'a', pin: '1111' }] } }, 'query.lines.$all.0'],
      ['a position in the array', { 'lines.0': { text: 'a', pin: '1111' } }, 'query.lines.0'],
    ])('refuses %s', async (_label, query, path) => {
      await expectQueryRefused(() => t.http().post('/articles').send({ query }), 'MR_INVALID_QUERY', path);
    });

    it.each([
      ['$elemMatch on the hidden sub-field', { lines: { $elemMatch: { pin: '1111' } } }, 'query.lines.$elemMatch.pin'],
      ['$elemMatch under $or', { $or: [{ lines: { $elemMatch: { text: 'a', pin: { $regex: '^1' } } } }] }, 'query.$or.0.lines.$elemMatch.pin'],
      ['an unknown field in $elemMatch', { lines: { $elemMatch: { nope: 1 } } }, 'query.lines.$elemMatch.nope'],
    ])('refuses %s, as an unknown field', async (_label, query, path) => {
      const response = await expectQueryRefused(() => t.http().post('/articles').send({ query }), 'MR_INVALID_QUERY', path);
      expect(response.body.message).toMatch(/^Unknown field/);
    });

    it.each([
      ['POST', { sort: { meta: 1 } }, 'sort.meta'],
      ['POST', { sort: { meta: -1 } }, 'sort.meta'],
      ['POST', { sort: { lines: 1 } }, 'sort.lines'],
    ])('refuses %s sort %j', async (_method, body, path) => {
      await expectQueryRefused(() => t.http().post('/articles').send(body), 'MR_INVALID_QUERY', path);
    });

    it('refuses GET ?sort=-meta', async () => {
      await expectQueryRefused(() => t.http().get('/articles?sort=-meta'), 'MR_INVALID_QUERY', 'sort.meta');
    });

    it('still compares and sorts the visible sub-fields, and accepts $elemMatch, $exists and $size on the parents', async () => {
      const byPublic = await t
        .http()
        .post('/articles')
        .send({ query: { 'meta.public': 'pub' }, sort: { 'meta.views': -1 } })
        .expect(200);
      expect(byPublic.body.result.map((article: { slug: string }) => article.slug)).toEqual(['two', 'one']);
      const byText = await t
        .http()
        .post('/articles')
        .send({ query: { 'lines.text': 'b' } })
        .expect(200);
      expect(byText.body.result.map((article: { slug: string }) => article.slug)).toEqual(['two']);
      const byElement = await t
        .http()
        .post('/articles')
        .send({ query: { lines: { $elemMatch: { text: 'b' } } } });
      // FerretDB v1 would answer it with no document: refused there with the code of an engine limit (issue 23 item 25).
      if (isFerretDb()) expectError(byElement, 400, 'MR_UNSUPPORTED_QUERY');
      else expect(byElement.status).toBe(200);
      const sized = await t
        .http()
        .post('/articles')
        .send({ query: { meta: { $exists: true }, lines: { $size: 1 } } })
        .expect(200);
      expect(sized.body.status.match_count).toBe(2);
    });

    itOnMongoDb(
      'FerretDB v1 matches no document with field conditions inside $elemMatch on an array of sub-documents',
      'finds the documents whose array has an element matching $elemMatch on a visible sub-field',
      async () => {
        const byLine = await t
          .http()
          .post('/articles')
          .send({ query: { lines: { $elemMatch: { text: 'b' } } } })
          .expect(200);
        expect(byLine.body.result.map((article: { slug: string }) => article.slug)).toEqual(['two']);
      },
    );
  });

  describe('BSON type markers in client JSON are a 400, never a 500', () => {
    it.each([
      ['a filter value', { query: { owner: { _bsontype: 'ObjectId' } } }, 'query.owner._bsontype'],
      ['$in', { query: { owner: { $in: [{ _bsontype: 'ObjectId', id: 'x' }] } } }, 'query.owner.$in.0._bsontype'],
      ['$elemMatch', { query: { niceName: { $elemMatch: { _bsontype: 'ObjectId' } } } }, 'query.niceName.$elemMatch._bsontype'],
    ])('in %s', async (_label, body, path) => {
      await expectQueryRefused(() => t.http().post('/companies').send(body), 'MR_INVALID_QUERY', path);
    });

    it('on the reverse route', async () => {
      await expectQueryRefused(
        () =>
          t
            .http()
            .post(`/user/${SEED_IDS.ADA}/companies/owner`)
            .send({ query: { owner: { _bsontype: 'ObjectId' } } }),
        'MR_INVALID_QUERY',
        'query.owner._bsontype',
      );
    });

    it('in a query string parsed into objects', async () => {
      await expectQueryRefused(() => t.http().get('/companies?owner[_bsontype]=ObjectId'), 'MR_INVALID_QUERY', 'query.owner[_bsontype]');
    });
  });

  describe('a parameter given twice, in any spelling, is refused', () => {
    it.each(['niceName[eq]=alpha&niceName=beta', 'niceName=beta&niceName[eq]=alpha', 'niceName=a&niceName=b'])('?%s', async (query) => {
      const response = await expectQueryRefused(() => t.http().get(`/companies?${query}`), 'MR_INVALID_QUERY', 'query.niceName');
      expect(response.body.message).toContain('more than once');
    });

    it('takes two operators on one field', async () => {
      await t.http().get('/companies?employees[gte]=10&employees[lte]=200').expect(200);
    });
  });

  describe('enum values are checked under every operator that carries one', () => {
    it.each([
      [{ status: { $all: ['gold'] } }, 'query.status.$all.0'],
      [{ status: { $not: { $eq: 'gold' } } }, 'query.status.$not.$eq'],
      [{ status: { $not: { $in: ['draft', 'gold'] } } }, 'query.status.$not.$in.1'],
      [{ status: { $elemMatch: { $eq: 'gold' } } }, 'query.status.$elemMatch.$eq'],
      [{ status: { $gte: 'gold' } }, 'query.status.$gte'],
      [{ $nor: [{ status: { $ne: 'gold' } }] }, 'query.$nor.0.status.$ne'],
    ])('%j', async (query, path) => {
      await expectQueryRefused(() => t.http().post('/articles').send({ query }), 'MR_INVALID_VALUE', path);
    });

    it('accepts the enum values under the same operators', async () => {
      const response = await t
        .http()
        .post('/articles')
        .send({ query: { status: { $not: { $in: ['draft'] } } } })
        .expect(200);
      expect(response.body.result.map((article: { slug: string }) => article.slug)).toEqual(['two']);
    });
  });
}
