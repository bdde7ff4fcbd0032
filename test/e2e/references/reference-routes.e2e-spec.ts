import { Company, Entrepreneur } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function referenceRoutesSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let ada: { _id: string };
  let grace: { _id: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company] });
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
    ada = (await t.http().post('/user').send({ niceName: 'Ada', birth: '1815-12-10' }).expect(201)).body;
    grace = (await t.http().post('/user').send({ niceName: 'Grace', birth: '1906-12-09' }).expect(201)).body;
    const companies = [
      { niceName: 'Analytical Engines', owner: ada._id, employees: 3, location: 'London' },
      { niceName: 'analytical software', owner: ada._id, employees: 30 },
      { niceName: 'Difference Ltd', owner: ada._id, employees: 12, location: 'London' },
      { niceName: 'COBOL Inc', owner: grace._id, employees: 500 },
      { niceName: 'Orphan Co', employees: 1 },
    ];
    for (const company of companies) await t.http().post('/company').send(company).expect(201);
  });

  async function companyId(niceName: string): Promise<string> {
    const doc = await t.connection.model('Company').findOne({ niceName }).lean<{ _id: object }>();
    return String(doc!._id);
  }

  describe('GET /company/:company_id/owner', () => {
    it('returns the referenced Entrepreneur with _id, niceName and birth', async () => {
      const response = await t
        .http()
        .get(`/company/${await companyId('COBOL Inc')}/owner`)
        .expect(200);
      expect(response.body).toEqual({ _id: grace._id, niceName: 'Grace', birth: '1906-12-09T00:00:00.000Z' });
    });

    it('answers 404 MR_NOT_FOUND when the company does not exist', async () => {
      const response = await t.http().get(`/company/${MISSING_ID}/owner`);
      expectError(response, 404, 'MR_NOT_FOUND');
      expect(response.body.message).toBe(`Company '${MISSING_ID}' not found`);
    });

    it('answers 404 MR_REFERENCE_UNSET when the company has no owner', async () => {
      const id = await companyId('Orphan Co');
      const response = await t.http().get(`/company/${id}/owner`);
      expectError(response, 404, 'MR_REFERENCE_UNSET');
      expect(response.body.message).toBe(`Company '${id}' has no owner`);
    });

    it('answers 404 MR_REFERENCE_BROKEN, saying so, when the owner was deleted', async () => {
      const id = await companyId('COBOL Inc');
      await t.http().delete(`/user/${grace._id}`).expect(200);
      const response = await t.http().get(`/company/${id}/owner`);
      expectError(response, 404, 'MR_REFERENCE_BROKEN');
      expect(response.body.message).toContain(`has owner '${grace._id}', but that Entrepreneur does not exist (it was deleted)`);
    });

    it('answers 400 for a malformed company id', async () => {
      expectError(await t.http().get('/company/not-an-id/owner'), 400, 'MR_INVALID_ID');
    });
  });

  describe('GET /user/:user_id/companies/owner', () => {
    it('returns the envelope of the companies whose owner is that user', async () => {
      const response = await t.http().get(`/user/${ada._id}/companies/owner?sort=niceName`).expect(200);
      expect(response.body.status).toEqual({ count: 5, search_count: 3, match_count: 3, counted: 'exact', limit: 20, skip: 0 });
      expect(response.body.result.map((c: { niceName: string }) => c.niceName)).toEqual(['Analytical Engines', 'Difference Ltd', 'analytical software']);
      expect(response.body.result[0]).toEqual({
        _id: expect.any(String),
        niceName: 'Analytical Engines',
        owner: ada._id,
        employees: 3,
        location: 'London',
      });
    });

    it('applies limit, skip, sort and field filters inside the owner condition', async () => {
      const response = await t.http().get(`/user/${ada._id}/companies/owner?location=London&sort=-employees&limit=1&skip=1`).expect(200);
      expect(response.body.result.map((c: { niceName: string }) => c.niceName)).toEqual(['Analytical Engines']);
      expect(response.body.status).toEqual({ count: 5, search_count: 1, match_count: 2, counted: 'exact', limit: 1, skip: 1 });
    });

    it('answers 200 with an empty result for a user with no companies', async () => {
      const alone = (await t.http().post('/user').send({ niceName: 'Alone' }).expect(201)).body._id;
      const response = await t.http().get(`/user/${alone}/companies/owner`).expect(200);
      expect(response.body).toEqual({ status: { count: 5, search_count: 0, match_count: 0, counted: 'exact', limit: 20, skip: 0 }, result: [] });
      await t.http().delete(`/user/${alone}`).expect(200);
    });

    it('answers 404 for a user that does not exist, so that "no such user" is not "no companies"', async () => {
      const response = await t.http().get(`/user/${MISSING_ID}/companies/owner`);
      expectError(response, 404, 'MR_NOT_FOUND');
      expect(response.body.message).toBe(`Entrepreneur '${MISSING_ID}' not found`);
      expectError(await t.http().post(`/user/${MISSING_ID}/companies/owner`).send({}), 404, 'MR_NOT_FOUND');
    });

    it('lists the companies that still reference a deleted user (dangling references), and is a 404 once none does', async () => {
      const gone = (await t.http().post('/user').send({ niceName: 'Gone' }).expect(201)).body._id;
      const orphan = (await t.http().post('/company').send({ niceName: 'Orphan', owner: gone }).expect(201)).body._id;
      await t.http().delete(`/user/${gone}`).expect(200);
      const listed = await t.http().get(`/user/${gone}/companies/owner`).expect(200);
      expect(listed.body.result.map((c: { _id: string }) => c._id)).toEqual([orphan]);
      // A filter that matches none of them: nothing tells the user existed, so "no such user".
      expectError(await t.http().get(`/user/${gone}/companies/owner?niceName=Other`), 404, 'MR_NOT_FOUND');
      await t.http().delete(`/company/${orphan}`).expect(200);
      expectError(await t.http().get(`/user/${gone}/companies/owner`), 404, 'MR_NOT_FOUND');
    });

    it('answers 400 for a malformed user id and for a bad parameter', async () => {
      expectError(await t.http().get('/user/xyz/companies/owner'), 400, 'MR_INVALID_ID');
      expectError(await t.http().get(`/user/${ada._id}/companies/owner?limit=0`), 400, 'MR_INVALID_QUERY');
    });
  });

  describe('POST /user/:user_id/companies/owner', () => {
    it('searches with $regex and $options i within the owner condition', async () => {
      const response = await t
        .http()
        .post(`/user/${ada._id}/companies/owner`)
        .send({ query: { niceName: { $regex: '^analytical', $options: 'i' } }, sort: { employees: -1 } })
        .expect(200);
      expect(response.body.result.map((c: { niceName: string }) => c.niceName)).toEqual(['analytical software', 'Analytical Engines']);
      expect(response.body.status).toEqual({ count: 5, search_count: 2, match_count: 2, counted: 'exact', limit: 20, skip: 0 });
    });

    it('accepts an empty query, limit and skip', async () => {
      const response = await t.http().post(`/user/${ada._id}/companies/owner`).send({ query: {}, limit: 2, skip: 1 }).expect(200);
      expect(response.body.status).toEqual({ count: 5, search_count: 2, match_count: 3, counted: 'exact', limit: 2, skip: 1 });
    });

    // Ada owns three of the five companies, Grace one, and one has no owner: each query below would
    // reach a company of another owner if it widened the route's condition.
    const ADA_COMPANIES = ['Analytical Engines', 'Difference Ltd', 'analytical software'];
    it.each([
      ['an owner condition naming another user too', { owner: { $in: ['GRACE', 'ADA'] } }],
      ['an $or that names another owner', { $or: [{ owner: 'GRACE' }, { niceName: { $exists: true } }] }],
      ['an $or that matches everything', { $or: [{ owner: { $exists: false } }, { owner: { $exists: true } }] }],
      ['an owner $ne another user', { owner: { $ne: 'GRACE' } }],
    ])('can never widen the owner condition, even with %s', async (_label, query) => {
      const body = JSON.parse(JSON.stringify({ query, sort: 'niceName' }).replaceAll('GRACE', grace._id).replaceAll('ADA', ada._id));
      const response = await t.http().post(`/user/${ada._id}/companies/owner`).send(body).expect(200);
      const result = response.body.result as Array<{ niceName: string; owner: string }>;
      expect(result.length).toBeGreaterThan(0);
      for (const company of result) expect(company.owner).toBe(ada._id);
      expect(result.map((company) => company.niceName)).toEqual(ADA_COMPANIES);
      expect(response.body.status).toEqual({ count: 5, search_count: 3, match_count: 3, counted: 'exact', limit: 20, skip: 0 });
    });

    it('can never widen the owner condition: an owner condition of its own naming another user narrows to nothing', async () => {
      // Grace owns a company, so an empty answer means the two conditions were both applied.
      expect(await t.connection.model('Company').countDocuments({ owner: grace._id })).toBe(1);
      const response = await t
        .http()
        .post(`/user/${ada._id}/companies/owner`)
        .send({ query: { owner: grace._id } })
        .expect(200);
      expect(response.body).toEqual({ status: { count: 5, search_count: 0, match_count: 0, counted: 'exact', limit: 20, skip: 0 }, result: [] });
    });

    it('answers 400 for a disallowed operator and for a malformed id', async () => {
      const refused = await t
        .http()
        .post(`/user/${ada._id}/companies/owner`)
        .send({ query: { $where: 'true' } });
      expectError(refused, 400, 'MR_INVALID_QUERY');
      expect(refused.body.details[0].path).toBe('query.$where');
      expectError(await t.http().post('/user/123/companies/owner').send({ query: {} }), 400, 'MR_INVALID_ID');
    });
  });

  describe('indexes', () => {
    it('the module creates an index on the reference field (listIndexes)', async () => {
      const indexes = await t.connection.model('Company').collection.indexes();
      expect(indexes.map((index) => index.key)).toContainEqual({ owner: 1 });
    });
  });
}
