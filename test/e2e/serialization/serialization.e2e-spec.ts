import type { Response } from 'supertest';
import { Agency, Agent, Plain } from '../../fixtures/serialization-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function serializationSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let agency: { _id: string };
  let agent: { _id: string };

  type Doc = Record<string, unknown>;
  const ADMIN = { 'x-role': 'admin' };
  const headers = (admin: boolean): Record<string, string> => (admin ? ADMIN : {});

  /** An agent as server code would store it: `secret` is hidden, so no client can write it. */
  async function storeAgent(values: Doc = {}): Promise<{ _id: string }> {
    const doc = await t.connection.model('Agent').create({
      codename: 'falcon',
      secret: 'launch-code',
      realName: 'Jane Roe',
      salary: 5000,
      callsign: 'hawk',
      hideout: { city: 'Lisbon', door: 'blue-door' },
      agency: agency._id,
      ...values,
    });
    return { _id: String(doc._id) };
  }

  beforeAll(async () => {
    t = await createTestApp(engine, {
      resources: [Agent, Agency, Plain],
      routes: { export: true, exportPost: true, updateMany: true, deleteMany: true },
      references: { reverseExport: true },
      serializationGroups: (request: { headers: Record<string, string | undefined> }) => (request.headers['x-role'] === 'admin' ? ['admin'] : []),
    });
    const stored = await t.connection.model('Agency').create({ name: 'Circus', budget: 90000, vault: 'vault-code' });
    agency = { _id: String(stored._id) };
    agent = await storeAgent();
    await t.connection.model('Agency').updateOne({ _id: stored._id }, { $set: { members: [agent._id] } });
  });
  afterAll(() => t?.close());

  /** An NDJSON body as the array of its documents. */
  const ndjson = (res: Response, done: (error: Error | null, body: unknown) => void) => {
    let text = '';
    (res as unknown as NodeJS.ReadableStream).on('data', (chunk: Buffer) => (text += chunk.toString()));
    (res as unknown as NodeJS.ReadableStream).on('end', () =>
      done(
        null,
        text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      ),
    );
  };

  /** Every route kind that answers documents: how to call it, the documents of its answer, and its status. */
  const ROUTES: Array<[string, (admin: boolean) => Promise<Response>, (body: any) => Doc[], number]> = [
    ['findOne', (admin) => t.http().get(`/agent/${agent._id}`).set(headers(admin)), (body) => [body], 200],
    [
      'create',
      (admin) =>
        t
          .http()
          .post('/agent')
          .set(headers(admin))
          .send({ codename: 'owl', ...(admin && { realName: 'Jane Roe' }) }),
      (body) => [body],
      201,
    ],
    ['update', (admin) => t.http().put(`/agent/${agent._id}`).set(headers(admin)).send({ codename: 'falcon' }), (body) => [body], 200],
    ['patch', (admin) => t.http().patch(`/agent/${agent._id}`).set(headers(admin)).send({ codename: 'falcon' }), (body) => [body], 200],
    [
      'delete',
      async (admin) =>
        t
          .http()
          .delete(`/agent/${(await storeAgent({ agency: undefined }))._id}`)
          .set(headers(admin)),
      (body) => [body],
      200,
    ],
    ['search', (admin) => t.http().get('/agents').set(headers(admin)), (body) => body.result, 200],
    ['searchPost', (admin) => t.http().post('/agents').set(headers(admin)).send({}), (body) => body.result, 200],
    ['export', (admin) => t.http().get('/agents/export?format=json').set(headers(admin)), (body) => body, 200],
    ['exportPost', (admin) => t.http().post('/agents/export?format=ndjson').set(headers(admin)).send({}).buffer(true).parse(ndjson), (body) => body, 200],
    ['reverse', (admin) => t.http().get(`/agency/${agency._id}/agents/agency`).set(headers(admin)), (body) => body.result, 200],
    ['reverseExport', (admin) => t.http().get(`/agency/${agency._id}/agents/agency/export?format=json`).set(headers(admin)), (body) => body, 200],
    ['reversePost', (admin) => t.http().post(`/agency/${agency._id}/agents/agency`).set(headers(admin)).send({}), (body) => body.result, 200],
    ['list', (admin) => t.http().get(`/agency/${agency._id}/members`).set(headers(admin)), (body) => body.result, 200],
  ];

  /** The routes that answer Agencies. */
  const AGENCY_ROUTES: typeof ROUTES = [
    ['forward reference (find)', (admin) => t.http().get(`/agent/${agent._id}/agency`).set(headers(admin)), (body) => [body], 200],
    ['add', (admin) => t.http().post(`/agency/${agency._id}/members/${agent._id}`).set(headers(admin)), (body) => [body], 200],
    [
      'remove then add back',
      async (admin) => {
        const response = await t.http().delete(`/agency/${agency._id}/members/${agent._id}`).set(headers(admin));
        await t.http().post(`/agency/${agency._id}/members/${agent._id}`).expect(200);
        return response;
      },
      (body) => [body],
      200,
    ],
    ['findOne of an agency', (admin) => t.http().get(`/agency/${agency._id}`).set(headers(admin)), (body) => [body], 200],
  ];

  describe('@Exclude() hides a field from every response', () => {
    it.each([...ROUTES, ...AGENCY_ROUTES].flatMap(([label, send, docs, status]) => [false, true].map((admin) => [label, admin, send, docs, status] as const)))(
      'on %s (admin: %s)',
      async (_label, admin, send, docs, status) => {
        const response = await send(admin);
        expect(response.status).toBe(status);
        expect(docs(response.body).length).toBeGreaterThan(0);
        const text = JSON.stringify(response.body);
        for (const secret of ['secret', 'launch-code', 'door', 'blue-door', 'vault']) expect(text).not.toContain(secret);
      },
    );

    it('though it is stored', async () => {
      const stored = await t.connection.db!.collection('agents').findOne({ codename: 'falcon' });
      expect(stored).toMatchObject({ secret: 'launch-code', hideout: { city: 'Lisbon', door: 'blue-door' } });
    });

    it.each([
      ['/agents', { query: { secret: 'launch-code' } }, 'query.secret'],
      ['/agents', { query: { 'hideout.door': { $regex: '^blue' } } }, 'query.hideout.door'],
      ['/agents', { query: { $or: [{ codename: 'x' }, { secret: 'launch-code' }] } }, 'query.$or.1.secret'],
      ['/agents', { sort: { secret: 1 } }, 'sort.secret'],
      ['/agents', { select: ['secret'] }, 'select.secret'],
      ['/agencies', { query: { vault: { $exists: true } } }, 'query.vault'],
    ])('cannot be filtered, sorted or selected, even by admins: POST %s %j', async (path, body, detailPath) => {
      for (const admin of [false, true]) {
        const response = await t.http().post(path).set(headers(admin)).send(body);
        expectError(response, 400, 'MR_INVALID_QUERY');
        expect(response.body.details[0].path).toBe(detailPath);
      }
    });

    it.each([
      ['POST', '/agent', { codename: 'owl', secret: 'x' }, 'secret'],
      ['PUT', `/agent/:id`, { hideout: { door: 'red' } }, 'hideout.door'],
      ['POST', '/agency', { name: 'MI7', vault: 'x' }, 'vault'],
    ])('is refused on write as an unknown field: %s %s %j', async (method, path, body, field) => {
      await expectRefusedUnchanged(t.connection, () => t.http()[method.toLowerCase() as 'post' | 'put'](path.replace(':id', agent._id)).set(ADMIN).send(body), {
        status: 400,
        code: 'MR_INVALID_BODY',
        details: [{ path: field, message: `Unknown field '${field}'` }],
      });
    });
  });

  describe("@Expose({ groups: ['admin'] }) shows a field to admins only", () => {
    it.each(ROUTES)('on %s', async (_label, send, docs, status) => {
      const [plain, admin] = [await send(false), await send(true)];
      expect([plain.status, admin.status]).toEqual([status, status]);
      expect(docs(plain.body).length).toBeGreaterThan(0);
      for (const doc of docs(plain.body)) {
        expect(doc).toHaveProperty('codename');
        expect(doc).not.toHaveProperty('realName');
        expect(doc).not.toHaveProperty('salary');
      }
      expect(docs(admin.body).some((doc) => doc.realName === 'Jane Roe')).toBe(true);
    });

    it.each(AGENCY_ROUTES)('on %s', async (_label, send, docs, status) => {
      const [plain, admin] = [await send(false), await send(true)];
      expect([plain.status, admin.status]).toEqual([status, status]);
      expect(docs(plain.body)[0]).toMatchObject({ name: 'Circus' });
      expect(docs(plain.body)[0]).not.toHaveProperty('budget');
      expect(docs(admin.body)[0]).toMatchObject({ name: 'Circus', budget: 90000 });
    });

    it("an export's columns are the view's: a field hidden from the request is no column", async () => {
      const header = async (admin: boolean) => (await t.http().get('/agents/export').set(headers(admin)).expect(200)).text.split('\n')[0].replace('\ufeff', '');
      expect(await header(false)).toBe('_id,codename,callsign,hideout.city,hideout._id,agency');
      expect(await header(true)).toBe('_id,codename,realName,salary,callsign,hideout.city,hideout._id,agency');
    });

    it(
      'is written by the requests that see it only: another gets the answer of a field that does not exist (test/e2e/rules/field-access.e2e-spec.ts has ' +
        'every write route)',
      async () => {
        await expectRefusedUnchanged(t.connection, () => t.http().post('/agent').send({ codename: 'lark', realName: 'John Doe' }), {
          status: 400,
          code: 'MR_INVALID_BODY',
          details: [{ path: 'realName', message: "Unknown field 'realName'" }],
        });
        const created = await t.http().post('/agent').set(ADMIN).send({ codename: 'lark', realName: 'John Doe' }).expect(201);
        expect(created.body.realName).toBe('John Doe');
        const read = await t.http().get(`/agent/${created.body._id}`).set(ADMIN).expect(200);
        expect(read.body.realName).toBe('John Doe');
      },
    );
  });

  describe('no oracle: a field hidden from the request is as unknown as one that does not exist', () => {
    /** The answer about `field`, with its name replaced, is the answer about a field that does not exist. */
    async function expectAnswerOfUnknownField(send: (field: string) => Promise<Response>, field: string): Promise<void> {
      const [hidden, unknown] = [await send(field), await send('noSuchField')];
      expectError(hidden, 400, 'MR_INVALID_QUERY');
      expect(JSON.parse(JSON.stringify(hidden.body).replaceAll(field, 'noSuchField'))).toEqual(unknown.body);
    }

    it.each([
      [
        'POST $regex',
        (field: string) =>
          t
            .http()
            .post('/agents')
            .send({ query: { [field]: { $regex: '^Jane' } } }),
      ],
      [
        'POST $or',
        (field: string) =>
          t
            .http()
            .post('/agents')
            .send({ query: { $or: [{ codename: 'x' }, { [field]: 'Jane Roe' }] } }),
      ],
      [
        'POST sort',
        (field: string) =>
          t
            .http()
            .post('/agents')
            .send({ sort: { [field]: -1 } }),
      ],
      [
        'POST select',
        (field: string) =>
          t
            .http()
            .post('/agents')
            .send({ select: ['codename', field] }),
      ],
      ['GET [regex]', (field: string) => t.http().get(`/agents?${field}[regex]=^Jane`)],
      ['GET sort', (field: string) => t.http().get(`/agents?sort=-${field}`)],
      ['GET select', (field: string) => t.http().get(`/agents?select=${field}`)],
      ['reverse GET', (field: string) => t.http().get(`/agency/${agency._id}/agents/agency?${field}=Jane%20Roe`)],
      [
        'reverse POST',
        (field: string) =>
          t
            .http()
            .post(`/agency/${agency._id}/agents/agency`)
            .send({ query: { [field]: { $exists: true } } }),
      ],
      ['list of references', (field: string) => t.http().get(`/agency/${agency._id}/members?sort=${field}`)],
      ['bulk DELETE', (field: string) => t.http().delete(`/agents?${field}=Jane%20Roe`)],
      ['bulk PATCH', (field: string) => t.http().patch(`/agents?${field}[regex]=^Jane`).send({ callsign: 'x' })],
    ])('without the group: %s', async (_label, send) => {
      await expectAnswerOfUnknownField(send, 'realName');
    });

    it.each([
      [
        'a comparison on another resource',
        (field: string) =>
          t
            .http()
            .post('/agencies')
            .send({ query: { [field]: { $gt: 1 } } }),
        'budget',
      ],
      [
        'a sort on a number',
        (field: string) =>
          t
            .http()
            .post('/agents')
            .send({ sort: { [field]: 1 } }),
        'salary',
      ],
    ])('without the group: %s', async (_label, send, field) => {
      await expectAnswerOfUnknownField(send, field);
    });

    it.each([
      [
        'POST $regex',
        () =>
          t
            .http()
            .post('/agents')
            .set(ADMIN)
            .send({ query: { realName: { $regex: '^Jane' } }, select: ['codename', 'realName'] }),
      ],
      ['GET [regex], sort and select', () => t.http().get('/agents?realName[regex]=^Jane&sort=-salary&select=codename,realName,salary').set(ADMIN)],
      ['reverse GET', () => t.http().get(`/agency/${agency._id}/agents/agency?realName=Jane%20Roe`).set(ADMIN)],
      ['list of references', () => t.http().get(`/agency/${agency._id}/members?sort=realName&select=codename,realName`).set(ADMIN)],
    ])('with the group: %s', async (_label, send) => {
      const response = await send();
      expect(response.status).toBe(200);
      expect(response.body.result.length).toBeGreaterThan(0);
      for (const doc of response.body.result) expect(doc.realName).toBe('Jane Roe');
    });
  });

  it('with the group, a bulk change may name the field: its dry run lists the agent, and its report names documents by id only', async () => {
    const response = await t.http().delete('/agents?realName=Jane%20Roe&codename=falcon&dryRun=true').set(ADMIN).expect(200);
    expect(response.body).toMatchObject({ dryRun: true, items: expect.arrayContaining([{ id: agent._id, result: 'matched' }]) });
    expect(JSON.stringify(response.body)).not.toMatch(/Jane|falcon|launch-code/);
  });

  describe('@Transform() rewrites the output value', () => {
    it.each([
      ['findOne', () => t.http().get(`/agent/${agent._id}`), 200, (body: any) => body, 'HAWK'],
      ['search', () => t.http().get('/agents?codename=falcon&limit=1'), 200, (body: any) => body.result[0], 'HAWK'],
      [
        'search with select',
        () =>
          t
            .http()
            .post('/agents')
            .send({ query: { _id: agent._id }, select: ['codename', 'callsign'] }),
        200,
        (body: any) => body.result[0],
        'HAWK',
      ],
      ['findOne as admin', () => t.http().get(`/agent/${agent._id}`).set(ADMIN), 200, (body: any) => body, 'HAWK'],
      ['create', () => t.http().post('/agent').send({ codename: 'wren', callsign: 'sparrow' }), 201, (body: any) => body, 'SPARROW'],
    ])('on %s', async (_label, send, status, doc, expected) => {
      const response = await send();
      expect(response.status).toBe(status);
      expect(doc(response.body).callsign).toBe(expected);
    });

    it('in a nested object typed with a class', async () => {
      const response = await t.http().get(`/agent/${agent._id}`).expect(200);
      expect(response.body.hideout).toEqual({ _id: expect.any(String), city: 'LISBON' });
    });

    it('and leaves the stored value as it was', async () => {
      const stored = await t.connection.db!.collection('agents').findOne({ codename: 'falcon' });
      expect(stored).toMatchObject({ callsign: 'hawk', hideout: { city: 'Lisbon' } });
    });

    it('leaves a resource without class-transformer decorators alone', async () => {
      const created = await t.http().post('/plain').send({ label: 'as is' }).expect(201);
      expect(created.body).toEqual({ _id: expect.any(String), label: 'as is' });
    });
  });
}
