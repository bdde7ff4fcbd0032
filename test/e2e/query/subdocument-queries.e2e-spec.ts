/**
 * The clinic app of issue 23: searches and writes below sub-documents and arrays of them. Errors
 * name the full dotted path (item 16); an element of an array of sub-documents is checked as on
 * create (item 18); the `$elemMatch` forms FerretDB v1 gets wrong are refused there, with the code
 * of an engine limit (item 25).
 */
import { ModelRoutesModule } from '../../../src/index.js';
import { Appointment, AppointmentController, Pet } from '../../fixtures/subdocument-models.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { itOnFerretDb, itOnMongoDb, useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function subdocumentQueriesSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    t = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Pet, Appointment], controllers: [AppointmentController] }),
    });
    await t.connection.model('Pet').create([
      {
        microchip: 'rex',
        name: 'Rex',
        vaccinations: [
          { name: 'rabies', date: new Date('2024-01-01') },
          { name: 'lepto', date: new Date('2025-06-01') },
        ],
        photo: { url: 'r.png', size: 3 },
        tags: ['dog', 'old'],
      },
      { microchip: 'tom', name: 'Tom', vaccinations: [{ name: 'typhus', date: new Date('2023-01-01') }], photo: { url: 't.png', size: 9 }, tags: ['cat'] },
    ]);
  });
  afterAll(() => t?.close());

  describe('a value that cannot be cast below a sub-document is named by its full dotted path', () => {
    it.each([
      [
        'GET ?vaccinations.date[gte]=notadate',
        () => t.http().get('/pets?vaccinations.date[gte]=notadate'),
        'query.vaccinations.date.$gte',
        'vaccinations.date',
      ],
      ['GET ?photo.size[gt]=big', () => t.http().get('/pets?photo.size[gt]=big'), 'query.photo.size.$gt', 'photo.size'],
      ['GET ?vaccinations.date=bad', () => t.http().get('/pets?vaccinations.date=bad'), 'query.vaccinations.date', 'vaccinations.date'],
      [
        'POST under $or',
        () =>
          t
            .http()
            .post('/pets')
            .send({ query: { $or: [{ name: 'Rex' }, { 'vaccinations.date': 'bad' }] } }),
        'query.$or.1.vaccinations.date',
        'vaccinations.date',
      ],
      [
        'POST $in',
        () =>
          t
            .http()
            .post('/pets')
            .send({ query: { 'photo.size': { $in: [1, 'big'] } } }),
        'query.photo.size.$in.1',
        'photo.size',
      ],
      [
        'POST a position in the array',
        () =>
          t
            .http()
            .post('/pets')
            .send({ query: { 'vaccinations.0.date': { $lt: 'bad' } } }),
        'query.vaccinations.0.date.$lt',
        'vaccinations.0.date',
      ],
      [
        'POST inside $elemMatch',
        () =>
          t
            .http()
            .post('/pets')
            .send({ query: { vaccinations: { $elemMatch: { name: 'rabies', date: { $gte: 'bad' } } } } }),
        'query.vaccinations.$elemMatch.date.$gte',
        'vaccinations.date',
      ],
    ])('%s', async (_label, send, path, field) => {
      const response = await send();
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details).toEqual([{ path, message: expect.stringContaining('cannot be converted') }]);
      expect(response.body.message).toContain(`Invalid value for '${field}'`);
    });

    it('a top-level field keeps its own name beside a sub-field of the same name', async () => {
      const response = await t
        .http()
        .post('/pets')
        .send({ query: { name: 'Rex', 'vaccinations.name': 'rabies', 'photo.size': 'big' } });
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details[0].path).toBe('query.photo.size');
    });
  });

  describe('$elemMatch: the forms FerretDB v1 lacks or gets wrong are refused there, never answered empty', () => {
    const slugsOf = (response: { body: { result: Array<{ microchip: string }> } }) => response.body.result.map((pet) => pet.microchip).sort();
    const ENGINE_WRONG: Array<[string, Record<string, unknown>, string, string[]]> = [
      ['a field condition on the elements', { vaccinations: { $elemMatch: { name: 'rabies' } } }, 'query.vaccinations.$elemMatch', ['rex']],
      ['an operator on a field of the elements', { vaccinations: { $elemMatch: { date: { $gte: '2025-01-01' } } } }, 'query.vaccinations.$elemMatch', ['rex']],
      [
        'two fields of one element',
        { vaccinations: { $elemMatch: { name: 'typhus', date: { $lt: '2024-01-01' } } } },
        'query.vaccinations.$elemMatch',
        ['tom'],
      ],
      ['$or inside, under $or', { $or: [{ vaccinations: { $elemMatch: { $or: [{ name: 'lepto' }] } } }] }, 'query.$or.0.vaccinations.$elemMatch', ['rex']],
      ['$ne on the elements', { tags: { $elemMatch: { $ne: 'dog' } } }, 'query.tags.$elemMatch.$ne', ['rex', 'tom']],
      ['$not on the elements', { tags: { $elemMatch: { $not: { $eq: 'cat' } } } }, 'query.tags.$elemMatch.$not', ['rex']],
      ['$size on the elements', { tags: { $elemMatch: { $size: 1 } } }, 'query.tags.$elemMatch.$size', []],
      ['an element compared with an object', { vaccinations: { $elemMatch: { $in: [{ name: 'x' }] } } }, 'query.vaccinations.$elemMatch.$in', []],
      ['$all of $elemMatch', { tags: { $all: [{ $elemMatch: { $eq: 'dog' } }, { $elemMatch: { $eq: 'old' } }] } }, 'query.tags.$all.0', ['rex']],
    ];

    itOnFerretDb(
      'FerretDB v1 matches no document, or fails, with these forms',
      'answers 400 MR_UNSUPPORTED_QUERY naming the place, for every form it gets wrong',
      async () => {
        for (const [label, query, path] of ENGINE_WRONG) {
          const response = await t.http().post('/pets').send({ query });
          expectError(response, 400, 'MR_UNSUPPORTED_QUERY');
          expect({ label, details: response.body.details }).toEqual({ label, details: [{ path, message: expect.stringContaining('FerretDB v1') }] });
        }
      },
    );

    itOnMongoDb('FerretDB v1 refuses these forms (see the test above)', 'answers every form with the documents it matches', async () => {
      for (const [label, query, , expected] of ENGINE_WRONG) {
        const response = await t.http().post('/pets').send({ query }).expect(200);
        expect({ label, found: slugsOf(response) }).toEqual({ label, found: expected });
      }
    });

    it.each<[string, Record<string, unknown>, string[]]>([
      ['a range on the elements of an array of strings', { tags: { $elemMatch: { $gte: 'd', $lt: 'e' } } }, ['rex']],
      ['$in on the elements', { tags: { $elemMatch: { $in: ['cat'] } } }, ['tom']],
      ['$regex on the elements', { tags: { $elemMatch: { $regex: '^o' } } }, ['rex']],
      ['the dotted sub-field, which any element may satisfy', { 'vaccinations.date': { $gte: '2025-01-01' } }, ['rex']],
    ])('runs %s on every engine', async (_label, query, expected) => {
      const response = await t.http().post('/pets').send({ query }).expect(200);
      expect(slugsOf(response)).toEqual(expected);
    });
  });

  describe('the clinic app: nulls in sub-document arrays, empty required strings, a custom route beside generated ones, error bodies', () => {
    const storedVaccinations = async (microchip: string) =>
      ((await t.connection.model('Pet').findOne({ microchip }).lean()) as unknown as { vaccinations: Array<Record<string, unknown>> }).vaccinations;

    it.each<[string, 'post' | 'put' | 'patch', string, Record<string, unknown>, string, number]>([
      ['create', 'post', '/pet', { microchip: 'kit', name: 'Kit', vaccinations: [{ name: 'a', date: null }] }, 'kit', 201],
      ['PATCH', 'patch', '/pet/rex', { vaccinations: [{ name: 'a', date: null }] }, 'rex', 200],
      ['PUT', 'put', '/pet/tom', { name: 'Tom', vaccinations: [{ name: 'a', date: null }] }, 'tom', 200],
    ])('null in an element of an array of sub-documents means absent, as on create (%s)', async (_label, method, path, body, microchip, status) => {
      const response = await t.http()[method](path).send(body);
      expect(response.status).toBe(status);
      expect(response.body.vaccinations).toEqual([{ _id: expect.any(String), name: 'a' }]);
      const [stored] = await storedVaccinations(microchip);
      expect(Object.keys(stored).sort()).toEqual(['_id', 'name']);
    });

    it.each([
      ['the id field', { microchip: '', name: 'Kit' }, { microchip: null, name: 'Kit' }, 'microchip', 'microchip is required'],
      [
        'a field of an element',
        { microchip: 'kat', name: 'Kat', vaccinations: [{ name: '' }] },
        { microchip: 'kat', name: 'Kat', vaccinations: [{ name: null }] },
        'vaccinations.0.name',
        'name is required',
      ],
    ])('an empty string on a required field (%s) is answered in the same words, at the same path, as null', async (_label, empty, nulled, path, message) => {
      const byEmpty = await t.http().post('/pet').send(empty);
      const byNull = await t.http().post('/pet').send(nulled);
      expectError(byEmpty, 400, 'MR_VALIDATION_FAILED');
      expect(byEmpty.body.details).toEqual([{ path, message }]);
      expect(byEmpty.body.details).toEqual(byNull.body.details);
    });

    it('POST /appointment/upcoming, where a custom GET route serves that path, is a 405 with the Allow of that route', async () => {
      await t.http().get('/appointment/upcoming').expect(200);
      const response = await t.http().post('/appointment/upcoming');
      expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toBe('GET, HEAD');
      // A path only the generated route serves still answers its methods.
      const generated = await t.http().post('/appointment/6f0000000000000000000000');
      expect(generated.headers.allow).toBe('DELETE, GET, HEAD, PATCH, PUT');
    });

    it('an error body carries no ETag (Express added a weak one); a success still does', async () => {
      for (const [response, status] of [
        [await t.http().get('/pet/nobody'), 404],
        [await t.http().get('/pets?photo.size[gt]=big'), 400],
        [await t.http().post('/appointment/upcoming'), 405],
        [await t.http().post('/pet').send({ name: 'x' }), 400],
      ] as const) {
        expect(response.status).toBe(status);
        expect(response.headers.etag).toBeUndefined();
        expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      }
      expect((await t.http().get('/pet/rex').expect(200)).headers.etag).toMatch(/^"/);
    });

    it('HEAD of a missing document is a 404 without a body or an ETag', async () => {
      const response = await t.http().head('/pet/nobody');
      expect(response.status).toBe(404);
      expect(response.headers.etag).toBeUndefined();
      expect(response.text ?? '').toBe('');
    });
  });
}
