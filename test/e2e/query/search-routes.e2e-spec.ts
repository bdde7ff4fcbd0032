import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { itOnFerretDb, itOnMongoDb, useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function searchRoutesSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  const COMPANIES = [
    { niceName: 'Acme', employees: 120, location: 'Paris' },
    { niceName: 'acme labs', employees: 8, location: 'Lyon' },
    { niceName: 'Globex', employees: 45, location: 'Paris' },
    { niceName: 'Initech', employees: 45 },
    { niceName: 'Umbrella', employees: 300, location: 'Raccoon City' },
  ];

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Account] });
    await t.connection.model('Company').insertMany(COMPANIES);
    await t.connection.model('Account').create({ email: 'root@example.com', passwordHash: 'hash-abc', plan: 'pro' });
  });
  afterAll(() => t?.close());

  const names = (body: { result: Array<{ niceName: string }> }) => body.result.map((item) => item.niceName);

  describe('GET /<plural>', () => {
    it('returns the envelope: count, search_count, match_count, limit, skip and the results', async () => {
      const response = await t.http().get('/companies').expect(200);
      expect(response.body.status).toEqual({ count: 5, search_count: 5, match_count: 5, counted: 'exact', limit: 20, skip: 0 });
      expect(response.body.result).toHaveLength(5);
      expect(response.body.result[0]).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        niceName: 'Acme',
        employees: 120,
        location: 'Paris',
      });
    });

    it('filters on field=value, with the value cast by the schema', async () => {
      const response = await t.http().get('/companies?location=Paris&sort=niceName').expect(200);
      expect(names(response.body)).toEqual(['Acme', 'Globex']);
      expect(response.body.status).toMatchObject({ count: 5, search_count: 2, match_count: 2 });
      const byNumber = await t.http().get('/companies?employees=45&sort=niceName').expect(200);
      expect(names(byNumber.body)).toEqual(['Globex', 'Initech']);
    });

    it('filters with field[op]=value', async () => {
      const response = await t.http().get('/companies').query({ 'employees[gte]': '100', sort: '-employees' }).expect(200);
      expect(names(response.body)).toEqual(['Umbrella', 'Acme']);
    });

    it('sorts, limits and skips; match_count ignores limit and skip', async () => {
      const response = await t.http().get('/companies?sort=-employees,niceName&limit=2&skip=1').expect(200);
      expect(names(response.body)).toEqual(['Acme', 'Globex']);
      expect(response.body.status).toEqual({ count: 5, search_count: 2, match_count: 5, counted: 'exact', limit: 2, skip: 1, next: expect.any(String) });
    });

    it('selects fields', async () => {
      const response = await t.http().get('/companies?select=niceName&sort=niceName&limit=1').expect(200);
      expect(response.body.result).toEqual([{ _id: expect.any(String), niceName: 'Acme' }]);
    });

    it('clamps a limit above the maximum to 100 and reports it', async () => {
      const response = await t.http().get('/companies?limit=1000').expect(200);
      expect(response.body.status.limit).toBe(100);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=-3', 'limit'],
      ['limit=ten', 'limit'],
      ['skip=-1', 'skip'],
      ['skip=1.5', 'skip'],
      ['skip=99999999', 'skip'],
      ['sort=secretField', 'sort.secretField'],
      ['select=nope', 'select.nope'],
      ['unknownField=1', 'query.unknownField'],
      ['employees[where]=1', 'query.employees.$where'],
      ['location=a&location=b', 'query.location'],
      ['location[eq]=a&location=b', 'query.location'],
    ])('answers 400 for ?%s', async (query, path) => {
      const response = await t.http().get(`/companies?${query}`);
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details[0].path).toBe(path);
    });

    it('answers 400 when a filter value cannot be cast', async () => {
      const response = await t.http().get('/companies?employees=many');
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details[0].path).toBe('query.employees');
    });

    it('neither returns nor filters on hidden fields', async () => {
      const list = await t.http().get('/accounts').expect(200);
      expect(list.body.result).toHaveLength(1);
      expect(list.body.result[0]).not.toHaveProperty('passwordHash');
      expectError(await t.http().get('/accounts?passwordHash=hash-abc'), 400, 'MR_INVALID_QUERY');
      expectError(await t.http().get('/accounts?select=passwordHash'), 400, 'MR_INVALID_QUERY');
      expectError(await t.http().get('/accounts?sort=passwordHash'), 400, 'MR_INVALID_QUERY');
    });
  });

  describe('enum fields', () => {
    it('filter on an allowed value', async () => {
      expect((await t.http().get('/accounts?plan=pro').expect(200)).body.status.match_count).toBe(1);
      expect(
        (
          await t
            .http()
            .post('/accounts')
            .send({ query: { plan: { $in: ['free'] } } })
            .expect(200)
        ).body.status.match_count,
      ).toBe(0);
    });

    it.each([
      ['GET', '/accounts?plan=gold', 'query.plan'],
      ['GET', '/accounts?plan[in]=free,gold', 'query.plan.$in.1'],
      ['POST', { query: { plan: 'gold' } }, 'query.plan'],
      ['POST', { query: { $or: [{ plan: { $ne: 'platinum' } }] } }, 'query.$or.0.plan.$ne'],
    ])('refuse a value outside the enum: %s %j', async (method, target, path) => {
      const response = method === 'GET' ? await t.http().get(target as string) : await t.http().post('/accounts').send(target);
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details[0].path).toBe(path);
    });
  });

  describe('POST /<plural>', () => {
    it('answers 200 with the envelope for an empty body', async () => {
      const response = await t.http().post('/companies').send({}).expect(200);
      expect(response.body.status).toEqual({ count: 5, search_count: 5, match_count: 5, counted: 'exact', limit: 20, skip: 0 });
    });

    it('answers 200 with no body at all', async () => {
      const response = await t.http().post('/companies').expect(200);
      expect(response.body.status.search_count).toBe(5);
    });

    it('filters with $regex and $options i (case-insensitive)', async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({ query: { niceName: { $regex: '^acme', $options: 'i' } }, sort: { niceName: 1 } })
        .expect(200);
      expect(names(response.body)).toEqual(['Acme', 'acme labs']);
      expect(response.body.status).toMatchObject({ count: 5, search_count: 2, match_count: 2 });
    });

    it('combines operators: $or, $gte, $in, $exists', async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({
          query: { $or: [{ employees: { $gte: 200 } }, { location: { $in: ['Lyon'] } }], niceName: { $exists: true } },
          sort: '-employees',
        })
        .expect(200);
      expect(names(response.body)).toEqual(['Umbrella', 'acme labs']);
    });

    it('casts values by the schema (numbers sent as strings)', async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({ query: { employees: { $lt: '10' } } })
        .expect(200);
      expect(names(response.body)).toEqual(['acme labs']);
    });

    it('pages with limit, skip and sort, and selects fields', async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({ query: {}, sort: { employees: -1 }, limit: 2, skip: 2, select: ['niceName', 'employees'] })
        .expect(200);
      expect(response.body.result).toEqual([
        { _id: expect.any(String), niceName: 'Globex', employees: 45 },
        { _id: expect.any(String), niceName: 'Initech', employees: 45 },
      ]);
      expect(response.body.status).toEqual({ count: 5, search_count: 2, match_count: 5, counted: 'exact', limit: 2, skip: 2, next: expect.any(String) });
    });

    it.each([
      [{ query: { $where: 'sleep(1000)' } }, 'query.$where'],
      [{ query: { $or: [{ $where: 'true' }] } }, 'query.$or.0.$where'],
      [{ query: { employees: { $expr: {} } } }, 'query.employees.$expr'],
      [{ query: { $expr: { $gt: ['$employees', 1] } } }, 'query.$expr'],
      [{ query: { niceName: { $function: {} } } }, 'query.niceName.$function'],
      [{ query: { unknown: 1 } }, 'query.unknown'],
      [{ query: [] }, 'query'],
      [{ query: { niceName: { $regex: 'a', $options: 'e' } } }, 'query.niceName.$options'],
      [{ query: { niceName: { $regex: 'a'.repeat(300) } } }, 'query.niceName.$regex'],
      [{ limit: 0 }, 'limit'],
      [{ limit: '5' }, 'limit'],
      [{ skip: -1 }, 'skip'],
      [{ sort: { nope: 1 } }, 'sort.nope'],
      [{ sort: { employees: 2 } }, 'sort.employees'],
      [{ select: 'nope' }, 'select.nope'],
      [{ populate: 'owner' }, 'populate'],
    ])('answers 400 for %j', async (body, path) => {
      const response = await t.http().post('/companies').send(body);
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details[0].path).toBe(path);
    });

    it('answers 400 when a value cannot be cast', async () => {
      expectError(
        await t
          .http()
          .post('/companies')
          .send({ query: { employees: { $gt: 'many' } } }),
        400,
        'MR_INVALID_VALUE',
      );
    });

    it('cannot use a hidden field as an oracle', async () => {
      const response = await t
        .http()
        .post('/accounts')
        .send({ query: { passwordHash: { $regex: '^hash' } } });
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.message).toBe("Unknown field 'passwordHash'");
    });
  });

  describe('$options x (extended regular expressions)', () => {
    const search = () =>
      t
        .http()
        .post('/companies')
        .send({ query: { niceName: { $regex: 'ac me', $options: 'ix' } } });

    itOnMongoDb('FerretDB v1 does not implement the x flag', 'is accepted: whitespace in the pattern is ignored', async () => {
      const response = await search().expect(200);
      expect(names(response.body)).toEqual(['Acme', 'acme labs']);
    });

    itOnFerretDb('MongoDB implements the x flag', 'is a 400 MR_UNSUPPORTED_QUERY on FerretDB v1, which answers NotImplemented (238), never a 500', async () => {
      const response = await search();
      expectError(response, 400, 'MR_UNSUPPORTED_QUERY');
      expect(response.body.message).toBe('The database server does not implement a feature this query uses');
    });

    itOnFerretDb(
      'MongoDB implements the x flag',
      'is a 200 with no result on an empty collection of FerretDB v1, which only meets the flag when it compares a document (CONTRIBUTING.md says so)',
      async () => {
        const response = await t
          .http()
          .post('/users')
          .send({ query: { niceName: { $regex: 'ad a', $options: 'x' } } })
          .expect(200);
        expect(response.body.status).toMatchObject({ search_count: 0, match_count: 0 });
      },
    );
  });
}
