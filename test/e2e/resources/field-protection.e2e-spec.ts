import { Member, Post } from '../../fixtures/protected-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldProtectionSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let member: Record<string, unknown> & { _id: string };
  let post: Record<string, unknown> & { _id: string };

  const SECRETS = ['passwordHash', 'internalNote', 'moderationScore'];
  const SECRET_VALUES = ['hash-123', 'do not show', 'zip-999'];

  /** No hidden field name nor value anywhere in a response body. */
  function expectNothingHidden(body: unknown): void {
    const text = JSON.stringify(body);
    for (const secret of [...SECRETS, ...SECRET_VALUES]) expect(text).not.toContain(secret);
  }

  /** Hidden fields are server-owned: clients cannot write them, so they are stored here as server code would. */
  async function storeMember(values: Record<string, unknown>): Promise<Record<string, unknown> & { _id: string }> {
    const doc = await t.connection.model('Member').create(values);
    return (await t.http().get(`/member/${doc._id}`).expect(200)).body;
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Member, Post] });
    member = await storeMember({ name: 'Ada', passwordHash: 'hash-123', internalNote: 'do not show', address: { city: 'London', zip: 'zip-999' } });
    const stored = await t.connection.model('Post').create({ title: 'Notes', author: member._id, moderationScore: 7 });
    post = (await t.http().get(`/post/${stored._id}`).expect(200)).body;
  });
  afterAll(() => t?.close());

  describe('hidden fields never appear in a response', () => {
    it('on create', () => {
      expect(member).toMatchObject({ name: 'Ada', role: 'user', address: { city: 'London' } });
      expectNothingHidden(member);
      expectNothingHidden(post);
    });

    it('though they are stored', async () => {
      const stored = await t.connection.db!.collection('members').findOne({ name: 'Ada' });
      expect(stored).toMatchObject({ passwordHash: 'hash-123', internalNote: 'do not show', address: { zip: 'zip-999' } });
    });

    it.each([
      ['GET one', () => t.http().get(`/member/${member._id}`)],
      ['GET search', () => t.http().get('/members')],
      ['POST search', () => t.http().post('/members').send({})],
      [
        'POST search with select',
        () =>
          t
            .http()
            .post('/members')
            .send({ select: ['name', 'address'] }),
      ],
      ['PUT', () => t.http().put(`/member/${member._id}`).send({ name: 'Ada L.' })],
      ['forward reference', () => t.http().get(`/post/${post._id}/author`)],
      ['reverse reference GET', () => t.http().get(`/member/${member._id}/posts/author`)],
      ['reverse reference POST', () => t.http().post(`/member/${member._id}/posts/author`).send({})],
      ['GET post', () => t.http().get(`/post/${post._id}`)],
    ])('on %s', async (_label, send) => {
      const response = await send();
      expect(response.status).toBe(200);
      expectNothingHidden(response.body);
    });

    it('on delete', async () => {
      const doomed = await storeMember({ name: 'Tmp', passwordHash: 'hash-123', internalNote: 'do not show' });
      const response = await t.http().delete(`/member/${doomed._id}`).expect(200);
      expect(response.body.name).toBe('Tmp');
      expectNothingHidden(response.body);
    });

    it('the forward route returns the referenced document without its hidden fields', async () => {
      const response = await t.http().get(`/post/${post._id}/author`).expect(200);
      expect(response.body).toMatchObject({ _id: member._id, name: expect.any(String), address: { city: 'London' } });
      expect(response.body.address).not.toHaveProperty('zip');
    });
  });

  describe('hidden fields cannot be filtered, sorted or selected', () => {
    it.each([
      ['/members', { query: { passwordHash: 'hash-123' } }, 'query.passwordHash'],
      ['/members', { query: { internalNote: { $exists: true } } }, 'query.internalNote'],
      ['/members', { query: { 'address.zip': 'zip-999' } }, 'query.address.zip'],
      ['/members', { query: { $or: [{ name: 'x' }, { passwordHash: 'hash-123' }] } }, 'query.$or.1.passwordHash'],
      ['/members', { sort: { passwordHash: 1 } }, 'sort.passwordHash'],
      ['/members', { select: ['internalNote'] }, 'select.internalNote'],
      ['/members', { select: ['address.zip'] }, 'select.address.zip'],
      ['/posts', { query: { moderationScore: { $gt: 0 } } }, 'query.moderationScore'],
    ])('POST %s %j', async (path, body, detailPath) => {
      const response = await t.http().post(path).send(body);
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details[0].path).toBe(detailPath);
    });

    it.each(['passwordHash=hash-123', 'internalNote[exists]=true', 'sort=-passwordHash', 'select=internalNote'])('GET /members?%s', async (query) => {
      expectError(await t.http().get(`/members?${query}`), 400, 'MR_INVALID_QUERY');
    });

    it('on the reverse route too', async () => {
      const response = await t
        .http()
        .post(`/member/${member._id}/posts/author`)
        .send({ query: { moderationScore: 7 } });
      expectError(response, 400, 'MR_INVALID_QUERY');
    });
  });

  describe('writes', () => {
    it('refuses readonly fields on create and update', async () => {
      const create = await t.http().post('/member').send({ name: 'Eve', role: 'admin' });
      expectError(create, 400, 'MR_INVALID_BODY');
      expect(create.body.details).toEqual([{ path: 'role', message: "Field 'role' cannot be written" }]);
      expectError(await t.http().put(`/member/${member._id}`).send({ role: 'admin' }), 400, 'MR_INVALID_BODY');
      const stored = await t.connection.db!.collection('members').findOne({ name: { $in: ['Ada', 'Ada L.'] } });
      expect(stored?.role).toBe('user');
      expect(await t.connection.db!.collection('members').countDocuments({ name: 'Eve' })).toBe(0);
    });

    it('refuses unknown nested fields, naming the full path', async () => {
      const response = await t
        .http()
        .put(`/member/${member._id}`)
        .send({ address: { city: 'Paris', isAdmin: true } });
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.details).toEqual([{ path: 'address.isAdmin', message: "Unknown field 'address.isAdmin'" }]);
      const stored = await t.connection.db!.collection('members').findOne({ _id: new (await import('mongoose')).Types.ObjectId(member._id) });
      expect(stored?.address).toEqual({ city: 'London', zip: 'zip-999' });
    });

    it('merges a nested object and keeps its hidden sub-field, which the client cannot see', async () => {
      const response = await t
        .http()
        .put(`/member/${member._id}`)
        .send({ address: { city: 'Paris' } })
        .expect(200);
      expect(response.body.address).toEqual({ city: 'Paris' });
      const stored = await t.connection.db!.collection('members').findOne({ name: { $in: ['Ada', 'Ada L.'] } });
      expect(stored?.address).toEqual({ city: 'Paris', zip: 'zip-999' });
    });

    it.each([
      ['POST', '/member', { name: 'Eve', passwordHash: 'attacker-chosen' }, 'passwordHash'],
      ['POST', '/member', { name: 'Eve', internalNote: 'x' }, 'internalNote'],
      ['POST', '/member', { name: 'Eve', address: { zip: 'x' } }, 'address.zip'],
      ['PUT', '/member/:id', { passwordHash: 'attacker-chosen' }, 'passwordHash'],
      ['PATCH', '/member/:id', { address: { zip: 'attacker-chosen' } }, 'address.zip'],
      ['POST', '/post', { title: 'x', moderationScore: 0 }, 'moderationScore'],
    ])('refuses a hidden field on %s %s, as an unknown field (no oracle): %j', async (method, path, body, field) => {
      const url = path.replace(':id', member._id);
      await expectRefusedUnchanged(t.connection, () => t.http()[method.toLowerCase() as 'post' | 'put' | 'patch'](url).send(body), {
        status: 400,
        code: 'MR_INVALID_BODY',
        details: [{ path: field, message: `Unknown field '${field}'` }],
      });
    });
  });

  describe('per-resource search options', () => {
    it('refuses $regex where the resource turns it off', async () => {
      const response = await t
        .http()
        .post('/members')
        .send({ query: { name: { $regex: '^A' } } });
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.message).toBe('$regex is disabled for this resource');
      expectError(await t.http().get('/members?name[regex]=^A'), 400, 'MR_INVALID_QUERY');
    });

    it('keeps $regex for the other resources', async () => {
      await t
        .http()
        .post('/posts')
        .send({ query: { title: { $regex: '^N' } } })
        .expect(200);
    });

    it("clamps to the resource's own maxLimit", async () => {
      const response = await t.http().get('/members?limit=50').expect(200);
      expect(response.body.status.limit).toBe(5);
    });
  });
}
