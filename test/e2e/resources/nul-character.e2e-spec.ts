/**
 * A NUL character (U+0000) in any client string is a 400 naming its place, on every engine
 * (issue 23 item 13): JSON allows it, but PostgreSQL's JSONB (FerretDB's main backend) cannot hold
 * it, where it was a 500. Bodies (nested, arrays, keys, free-form), query strings, search values,
 * regular expressions and path identifiers; nothing is written.
 */
import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { Book, Review } from '../../fixtures/extend-models.js';
import { Pet } from '../../fixtures/subdocument-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { snapshot } from '../../support/db-snapshot.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function nulCharacterSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let before: Awaited<ReturnType<typeof snapshot>>;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Account, Book, Review, Pet] });
    await t.connection.model('Company').create({ niceName: 'Acme' });
    await t.connection.model('Book').create({ slug: 'dune', title: 'Dune' });
    await t.connection.model('Pet').create({ microchip: 'rex', name: 'Rex', vaccinations: [{ name: 'rabies' }], notes: { k: 'v' } });
    before = await snapshot(t.connection);
  });
  afterAll(() => t?.close());
  afterEach(async () => expect((await snapshot(t.connection)).text).toBe(before.text));

  const NUL = '\u0000';

  describe('in a body: 400 at the path of the value, nothing written', () => {
    it.each<[string, 'post' | 'put' | 'patch', string, Record<string, unknown>, string, string]>([
      ['a field', 'post', '/company', { niceName: `a${NUL}b` }, 'MR_VALIDATION_FAILED', 'niceName'],
      ['a nested object', 'post', '/account', { email: 'a@b.c', profile: { displayName: `x${NUL}` } }, 'MR_VALIDATION_FAILED', 'profile.displayName'],
      ['an array of strings', 'patch', '/pet/rex', { tags: ['dog', `c${NUL}t`] }, 'MR_VALIDATION_FAILED', 'tags.1'],
      [
        'an array of sub-documents',
        'put',
        '/pet/rex',
        { name: 'Rex', vaccinations: [{ name: 'ok' }, { name: `${NUL}` }] },
        'MR_VALIDATION_FAILED',
        'vaccinations.1.name',
      ],
      ['a free-form value, deep', 'patch', '/pet/rex', { notes: { deep: [{ text: `${NUL}` }] } }, 'MR_VALIDATION_FAILED', 'notes.deep.0.text'],
      ['a free-form key', 'patch', '/pet/rex', { notes: { [`k${NUL}`]: 1 } }, 'MR_INVALID_BODY', `notes.k${NUL}`],
      ['a key of the body', 'post', '/company', { [`nice${NUL}Name`]: 'x' }, 'MR_INVALID_BODY', `nice${NUL}Name`],
      ['the identifier of a slug resource', 'post', '/book', { slug: `du${NUL}ne`, title: 'x' }, 'MR_VALIDATION_FAILED', 'slug'],
      ['a reference by slug', 'post', '/review', { text: 'x', book: `dune${NUL}` }, 'MR_VALIDATION_FAILED', 'book'],
    ])('%s (%s %s)', async (_label, method, path, body, code, at) => {
      const response = await t.http()[method](path).send(body);
      expectError(response, 400, code);
      expect(response.body.details).toEqual([{ path: at, message: expect.stringContaining('NUL character') }]);
    });
  });

  describe('in a search: 400 MR_INVALID_VALUE at the path of the value', () => {
    it.each([
      ['?niceName=a%00b', 'query.niceName'],
      ['?niceName[ne]=a%00b', 'query.niceName.$ne'],
      ['?niceName[in]=x,a%00b', 'query.niceName.$in.1'],
      ['?niceName[regex]=a%00', 'query.niceName.$regex'],
    ])('GET /companies%s', async (query, path) => {
      const response = await t.http().get(`/companies${query}`);
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details).toEqual([{ path, message: expect.stringContaining('NUL character') }]);
    });

    it.each([
      [{ niceName: `a${NUL}` }, 'query.niceName'],
      [{ $or: [{ employees: 1 }, { niceName: { $in: ['x', `a${NUL}`] } }] }, 'query.$or.1.niceName.$in.1'],
      [{ niceName: { $not: { $regex: `^a${NUL}` } } }, 'query.niceName.$not.$regex'],
      [{ location: { $elemMatch: { $eq: `${NUL}` } } }, 'query.location.$elemMatch.$eq'],
    ])('POST /companies %j', async (query, path) => {
      const response = await t.http().post('/companies').send({ query });
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details).toEqual([{ path, message: expect.stringContaining('NUL character') }]);
    });

    it('in a key or a value below a free-form field', async () => {
      const value = await t
        .http()
        .post('/pets')
        .send({ query: { 'notes.k': `v${NUL}` } });
      expectError(value, 400, 'MR_INVALID_VALUE');
      expect(value.body.details[0].path).toBe('query.notes.k');
      const key = await t
        .http()
        .post('/pets')
        .send({ query: { notes: { [`k${NUL}`]: 'v' } } });
      expectError(key, 400, 'MR_INVALID_QUERY');
      expect(key.body.details[0].path).toBe(`query.notes.k${NUL}`);
      const field = await t
        .http()
        .post('/pets')
        .send({ query: { [`notes.k${NUL}`]: 'v' } });
      expectError(field, 400, 'MR_INVALID_QUERY');
    });

    it('in a reverse reference search', async () => {
      const response = await t.http().get(`/book/dune/reviews/book?text=a%00`);
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details[0].path).toBe('query.text');
    });

    it('in sort and select: an unknown field', async () => {
      expectError(await t.http().get('/companies?sort=nice%00Name'), 400, 'MR_INVALID_QUERY');
      expectError(
        await t
          .http()
          .post('/companies')
          .send({ select: [`niceName${NUL}`] }),
        400,
        'MR_INVALID_QUERY',
      );
    });
  });

  describe('in a path identifier: 400 MR_INVALID_ID naming the id field', () => {
    it.each<['get' | 'put' | 'patch' | 'delete', string, string]>([
      ['get', '/book/a%00b', 'slug'],
      ['patch', '/book/a%00b', 'slug'],
      ['put', '/book/a%00b', 'slug'],
      ['delete', '/book/a%00b', 'slug'],
      ['get', '/pet/rex%00', 'microchip'],
      ['get', '/book/a%00b/reviews/book', 'slug'],
      ['get', '/company/a%00b', '_id'],
    ])('%s %s', async (method, path, field) => {
      const response = await t
        .http()
        [method](path)
        .send(method === 'get' || method === 'delete' ? undefined : { title: 'x' });
      expectError(response, 400, 'MR_INVALID_ID');
      expect(response.body.details[0].path).toBe(field);
    });
  });

  it('a string without NUL is still stored and found, as a control: 201 and 200', async () => {
    const created = await t.http().post('/company').send({ niceName: 'tab\there' }).expect(201);
    const found = await t.http().get('/companies?niceName=tab%09here').expect(200);
    expect(found.body.result.map((company: { _id: string }) => company._id)).toEqual([created.body._id]);
    await t.connection.model('Company').deleteOne({ _id: created.body._id });
  });
}
