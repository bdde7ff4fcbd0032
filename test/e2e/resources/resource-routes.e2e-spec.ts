import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function resourceRoutesSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Account] });
  });
  afterAll(() => t?.close());
  beforeEach(async () => {
    await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
  });

  async function createCompany(body: Record<string, unknown> = { niceName: 'Acme', employees: 12, location: 'Paris' }) {
    const response = await t.http().post('/company').send(body).expect(201);
    return response.body as Record<string, unknown> & { _id: string };
  }

  /** An account with a hidden field, stored as server code would (clients cannot write hidden fields). */
  async function storeAccount(values: Record<string, unknown>) {
    const doc = await t.connection.model('Account').create(values);
    return { _id: String(doc._id) };
  }

  describe('POST /<model>', () => {
    it('creates the document: 201, the document with its _id as a string, and a Location header', async () => {
      const response = await t.http().post('/company').send({ niceName: 'Acme', employees: 12, location: 'Paris' });
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), niceName: 'Acme', employees: 12, location: 'Paris' });
      expect(response.headers.location).toBe(`/company/${response.body._id}`);
      const stored = await t.connection.model('Company').findById(response.body._id).lean();
      expect(stored).toMatchObject({ niceName: 'Acme', employees: 12 });
    });

    it('builds the Location header from the path alone: a query string of the request is not in it', async () => {
      const response = await t.http().post('/company?source=signup&x=/').send({ niceName: 'Query' }).expect(201);
      expect(response.headers.location).toBe(`/company/${response.body._id}`);
    });

    it('returns dates as ISO 8601 strings and never the version key', async () => {
      const response = await t.http().post('/user').send({ niceName: 'Ada', birth: '1815-12-10' }).expect(201);
      expect(response.body).toEqual({ _id: expect.any(String), niceName: 'Ada', birth: '1815-12-10T00:00:00.000Z' });
      expect(response.body).not.toHaveProperty('__v');
    });

    it('refuses a missing required field with 400 and one detail per field', async () => {
      const response = await t.http().post('/company').send({ employees: 3 });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details).toEqual([{ path: 'niceName', message: expect.stringContaining('required') }]);
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
    });

    it('refuses a value that cannot be cast with 400', async () => {
      const response = await t.http().post('/company').send({ niceName: 'Acme', employees: 'many' });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details[0].path).toBe('employees');
    });

    it('refuses unknown fields instead of dropping them', async () => {
      const response = await t.http().post('/company').send({ niceName: 'Acme', isAdmin: true });
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.details).toEqual([{ path: 'isAdmin', message: "Unknown field 'isAdmin'" }]);
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
    });

    it.each(['_id', '__v', 'createdAt', 'updatedAt'])('refuses a client-written %s', async (field) => {
      const response = await t
        .http()
        .post('/account')
        .send({ email: 'a@example.com', [field]: field === '_id' ? MISSING_ID : 1 });
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.details[0].path).toBe(field);
      expect(await t.connection.model('Account').countDocuments()).toBe(0);
    });

    it('refuses a body that is not an object', async () => {
      expectError(
        await t
          .http()
          .post('/company')
          .send([{ niceName: 'Acme' }]),
        400,
        'MR_INVALID_BODY',
      );
    });

    it('answers 409 on a duplicate unique key', async () => {
      await t.http().post('/account').send({ email: 'a@example.com' }).expect(201);
      const response = await t.http().post('/account').send({ email: 'a@example.com' });
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(await t.connection.model('Account').countDocuments()).toBe(1);
    });

    // MongoDB names the field in keyValue; FerretDB v1 does not, and the repository asks the unique indexes.
    it('names the field of a duplicate unique key in details', async () => {
      await t.http().post('/account').send({ email: 'a@example.com' }).expect(201);
      const response = await t.http().post('/account').send({ email: 'a@example.com' });
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(response.body.details).toEqual([{ path: 'email', message: 'must be unique' }]);
    });

    it('refuses a hidden (select: false) field as an unknown one: it is server-owned', async () => {
      const response = await t.http().post('/account').send({ email: 'h@example.com', passwordHash: 'secret-hash' });
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.details).toEqual([{ path: 'passwordHash', message: "Unknown field 'passwordHash'" }]);
      expect(await t.connection.model('Account').countDocuments()).toBe(0);
    });
  });

  describe('GET /<model>/:id', () => {
    it('returns the document', async () => {
      const company = await createCompany();
      const response = await t.http().get(`/company/${company._id}`).expect(200);
      expect(response.body).toEqual(company);
    });

    it('answers 404 for an unknown id', async () => {
      const response = await t.http().get(`/company/${MISSING_ID}`);
      expectError(response, 404, 'MR_NOT_FOUND');
      expect(response.body.message).toBe(`Company '${MISSING_ID}' not found`);
    });

    it.each(['not-an-id', '123', 'zzzzzzzzzzzzzzzzzzzzzzzz', 'abcdefghijkl'])('answers 400 for the malformed id %s', async (id) => {
      expectError(await t.http().get(`/company/${id}`), 400, 'MR_INVALID_ID');
    });

    it('never returns a hidden field', async () => {
      const account = await storeAccount({ email: 'g@example.com', passwordHash: 'secret-hash' });
      const response = await t.http().get(`/account/${account._id}`).expect(200);
      expect(response.body.email).toBe('g@example.com');
      expect(response.body).not.toHaveProperty('passwordHash');
    });
  });

  describe('PUT /<model>/:id', () => {
    it('changes only the fields sent and returns the updated document', async () => {
      const company = await createCompany();
      const response = await t.http().put(`/company/${company._id}`).send({ employees: 40 }).expect(200);
      expect(response.body).toEqual({ ...company, employees: 40 });
      const stored = await t.connection.model('Company').findById(company._id).lean();
      expect(stored).toMatchObject({ niceName: 'Acme', employees: 40, location: 'Paris' });
    });

    it('runs the schema validators of the fields sent', async () => {
      const account = await t.http().post('/account').send({ email: 'v@example.com', credits: 5 }).expect(201);
      const response = await t.http().put(`/account/${account.body._id}`).send({ credits: -1 });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details[0].path).toBe('credits');
      expect(await t.connection.model('Account').findById(account.body._id).lean()).toMatchObject({ credits: 5 });
    });

    it('refuses to unset a required field', async () => {
      const company = await createCompany();
      expectError(await t.http().put(`/company/${company._id}`).send({ niceName: null }), 400, 'MR_VALIDATION_FAILED');
      expect(await t.connection.model('Company').findById(company._id).lean()).toMatchObject({ niceName: 'Acme' });
    });

    it('refuses a value that cannot be cast', async () => {
      const company = await createCompany();
      const response = await t.http().put(`/company/${company._id}`).send({ employees: 'many' });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details).toEqual([{ path: 'employees', message: 'employees must be a number' }]);
      expect(await t.connection.model('Company').findById(company._id).lean()).toMatchObject({ employees: 12 });
    });

    it('refuses _id and unknown fields', async () => {
      const company = await createCompany();
      expectError(await t.http().put(`/company/${company._id}`).send({ _id: MISSING_ID }), 400, 'MR_INVALID_BODY');
      expectError(await t.http().put(`/company/${company._id}`).send({ role: 'admin' }), 400, 'MR_INVALID_BODY');
      expect(await t.connection.model('Company').findById(company._id).lean()).toMatchObject({ niceName: 'Acme' });
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      expectError(await t.http().put(`/company/${MISSING_ID}`).send({ employees: 1 }), 404, 'MR_NOT_FOUND');
      expectError(await t.http().put('/company/nope').send({ employees: 1 }), 400, 'MR_INVALID_ID');
    });

    /** Two accounts; the second one's email is then changed to the first one's. */
    async function collideOnUpdate() {
      await t.http().post('/account').send({ email: 'one@example.com' }).expect(201);
      const two = await t.http().post('/account').send({ email: 'two@example.com' }).expect(201);
      const response = await t.http().put(`/account/${two.body._id}`).send({ email: 'one@example.com' });
      expect(await t.connection.model('Account').findById(two.body._id).lean()).toMatchObject({ email: 'two@example.com' });
      return response;
    }

    // FerretDB v1 reports this as an InternalError naming the index, MongoDB as E11000: both are a 409.
    it('answers 409 naming the field when the change collides with a unique value', async () => {
      const response = await collideOnUpdate();
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(response.body.details).toEqual([{ path: 'email', message: 'must be unique' }]);
    });

    it('keeps hidden fields out of the response', async () => {
      const account = await storeAccount({ email: 'u@example.com', passwordHash: 'h' });
      const response = await t.http().put(`/account/${account._id}`).send({ credits: 3 }).expect(200);
      expect(response.body).toMatchObject({ email: 'u@example.com', credits: 3 });
      expect(response.body).not.toHaveProperty('passwordHash');
      expect(response.body).not.toHaveProperty('__v');
    });
  });

  describe('DELETE /<model>/:id', () => {
    it('deletes the document and returns it', async () => {
      const company = await createCompany();
      const response = await t.http().delete(`/company/${company._id}`).expect(200);
      expect(response.body).toEqual(company);
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
      expectError(await t.http().get(`/company/${company._id}`), 404, 'MR_NOT_FOUND');
    });

    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      await createCompany();
      expectError(await t.http().delete(`/company/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().delete('/company/12'), 400, 'MR_INVALID_ID');
      expect(await t.connection.model('Company').countDocuments()).toBe(1);
    });

    it('keeps hidden fields out of the response', async () => {
      const account = await storeAccount({ email: 'd@example.com', passwordHash: 'h' });
      const response = await t.http().delete(`/account/${account._id}`).expect(200);
      expect(response.body.email).toBe('d@example.com');
      expect(response.body).not.toHaveProperty('passwordHash');
    });
  });

  describe('numbers JSON can carry but a database may refuse', () => {
    it('1e400 (Infinity) is a 400 MR_VALIDATION_FAILED at its field, never a 500, and stores nothing', async () => {
      const response = await t.http().post('/company').set('content-type', 'application/json').send('{"niceName":"Big","employees":1e400}');
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details).toEqual([{ path: 'employees', message: 'employees must be a finite number' }]);
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
    });
  });
}
