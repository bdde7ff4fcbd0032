/**
 * What a write may change (issue 9, items 1–4 and findings A3, A4, A9, A10): hidden fields are
 * refused unless write-only, server-owned fields are set by custom code after the client's body
 * is checked, PUT and PATCH merge at every depth, nested objects take objects, duplicates are a
 * 409 naming the field on every engine, and what is answered is what was stored.
 */
import { Types } from 'mongoose';
import { Account, Entrepreneur, Team, Venue } from '../../fixtures/models.js';
import { Article, Author, AuthorController, hashOf, Tag } from '../../fixtures/blog-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function writeSemanticsSpec(): void {
  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Author, Tag, Article, Account, Entrepreneur, Team, Venue], controllers: [AuthorController] });
  });
  afterAll(() => t?.close());

  const raw = (collection: string, id: string) => t.connection.db!.collection(collection).findOne({ _id: new Types.ObjectId(id) });

  /** Sends a write and checks it was refused with `status`/`code` at `path`, the data unchanged. */
  async function expectRefusedWrite(send: () => PromiseLike<unknown>, status: number, code: string, path: string): Promise<void> {
    await expectRefusedUnchanged(t.connection, send, { status, code, details: expect.arrayContaining([expect.objectContaining({ path })]) });
  }

  describe('write-only fields: sent, stored, never read', () => {
    it('accepts a write-only field on create and update, and never answers it', async () => {
      const created = await t.http().post('/author').send({ name: 'Ada', pin: '1234' }).expect(201);
      expect(created.body).toEqual({ _id: expect.any(String), name: 'Ada' });
      expect((await raw('authors', created.body._id))?.pin).toBe('1234');
      // Not a hex string: '9999' once failed this test by appearing in a new document's _id (6b0563d97999988f...).
      const updated = await t.http().patch(`/author/${created.body._id}`).send({ pin: 'pin:9999' }).expect(200);
      expect(updated.body).not.toHaveProperty('pin');
      expect((await raw('authors', created.body._id))?.pin).toBe('pin:9999');
      expect((await t.http().get(`/author/${created.body._id}`).expect(200)).body).not.toHaveProperty('pin');
      expect(JSON.stringify((await t.http().get('/authors').expect(200)).body)).not.toContain('pin:9999');
    });

    it('cannot filter, sort or select a write-only field (no oracle)', async () => {
      expectError(
        await t
          .http()
          .post('/authors')
          .send({ query: { pin: '9999' } }),
        400,
        'MR_INVALID_QUERY',
      );
      expectError(await t.http().get('/authors?sort=pin'), 400, 'MR_INVALID_QUERY');
      expectError(await t.http().get('/authors?select=pin'), 400, 'MR_INVALID_QUERY');
    });

    it('refuses a hidden field that is not write-only, as an unknown one, on POST, PUT and PATCH', async () => {
      const author = (await t.http().post('/author').send({ name: 'Bob' }).expect(201)).body._id;
      await expectRefusedWrite(() => t.http().post('/author').send({ name: 'Eve', passwordHash: 'attacker-chosen' }), 400, 'MR_INVALID_BODY', 'passwordHash');
      await expectRefusedWrite(() => t.http().put(`/author/${author}`).send({ passwordHash: 'attacker-chosen' }), 400, 'MR_INVALID_BODY', 'passwordHash');
      await expectRefusedWrite(
        () =>
          t
            .http()
            .patch(`/author/${author}`)
            .send({ address: { zip: '000' } }),
        400,
        'MR_INVALID_BODY',
        'address.zip',
      );
      const refused = await t.http().post('/account').send({ email: 'x@example.com', passwordHash: 'attacker-chosen' });
      expect(refused.body.message).toBe("Unknown field 'passwordHash'");
      expect((await t.http().post('/account').send({ email: 'x@example.com', nope: 1 })).body.message).toBe("Unknown field 'nope'");
    });
  });

  describe('server-owned fields, set by an override after the check', () => {
    it('stores the hash of a write-only password and the date it changed, and answers neither the password nor the hash', async () => {
      const created = await t.http().post('/author').send({ name: 'Cy', password: 'correct horse' }).expect(201);
      expect(created.body).toEqual({ _id: expect.any(String), name: 'Cy', passwordChangedAt: expect.any(String) });
      const stored = await raw('authors', created.body._id);
      expect(stored).toMatchObject({ passwordHash: hashOf('correct horse') });
      expect(stored).not.toHaveProperty('password');
      await t.http().put(`/author/${created.body._id}`).send({ password: 'battery staple' }).expect(200);
      expect((await raw('authors', created.body._id))?.passwordHash).toBe(hashOf('battery staple'));
    });

    it('still checks the client body first: a readonly field stays refused, and so does a body that is not an object', async () => {
      const author = (await t.http().post('/author').send({ name: 'Eli' }).expect(201)).body._id;
      await expectRefusedWrite(
        () => t.http().post('/author').send({ name: 'Dee', passwordChangedAt: '2020-01-01' }),
        400,
        'MR_INVALID_BODY',
        'passwordChangedAt',
      );
      await expectRefusedWrite(() => t.http().put(`/author/${author}`).send([]), 400, 'MR_INVALID_BODY', 'body');
      await expectRefusedWrite(() => t.http().post('/author').send({ name: 'Dee', password: 123 }), 400, 'MR_VALIDATION_FAILED', 'password');
    });

    it('never stores the write-only password itself, on create or update', async () => {
      const created = await t.http().post('/author').send({ name: 'Fay', password: 'first password' }).expect(201);
      await t.http().patch(`/author/${created.body._id}`).send({ password: 'second password' }).expect(200);
      expect(await raw('authors', created.body._id)).not.toHaveProperty('password');
    });
  });

  describe('PUT and PATCH merge at every depth', () => {
    let slug: string;
    beforeEach(async () => {
      slug = `merge-${new Types.ObjectId().toHexString()}`;
      await t.connection
        .model('Article')
        .create({ slug, title: 'Merge', meta: { views: 120, likes: 7, public: 'p', token: 'secret' }, keywords: ['a', 'b'], subtitle: 'sub' });
    });
    const stored = () => t.connection.db!.collection('articles').findOne({ slug });

    it.each(['put', 'patch'] as const)('%s {"meta":{"views":121}} keeps likes and the hidden token', async (method) => {
      const response = await t
        .http()
        [method](`/article/${slug}`)
        .send({ meta: { views: 121 } })
        .expect(200);
      expect(response.body.meta).toEqual({ views: 121, likes: 7, public: 'p' });
      expect((await stored())?.meta).toEqual({ views: 121, likes: 7, public: 'p', token: 'secret' });
    });

    it('null clears a field that is not required, at any depth', async () => {
      const response = await t
        .http()
        .patch(`/article/${slug}`)
        .send({ subtitle: null, meta: { likes: null } })
        .expect(200);
      expect(response.body).not.toHaveProperty('subtitle');
      expect(response.body.meta).toEqual({ views: 120, public: 'p' });
      expect(await stored()).toMatchObject({ meta: { views: 120, public: 'p', token: 'secret' } });
      expect(await stored()).not.toHaveProperty('subtitle');
    });

    it('null on a nested object that holds a hidden sub-field clears the others and keeps the hidden one', async () => {
      const author = await t.connection.model('Author').create({ name: 'Gus', address: { city: 'Rome', zip: 'ZIP-ROME' } });
      const response = await t.http().patch(`/author/${author._id}`).send({ address: null }).expect(200);
      expect(response.body).not.toHaveProperty('address.city');
      expect((await raw('authors', String(author._id)))?.address).toEqual({ zip: 'ZIP-ROME' });
    });

    it('null on a required field is a 400 that changes nothing', async () => {
      await expectRefusedWrite(() => t.http().put(`/article/${slug}`).send({ title: null }), 400, 'MR_VALIDATION_FAILED', 'title');
    });

    it('replaces arrays whole', async () => {
      const response = await t
        .http()
        .put(`/article/${slug}`)
        .send({ keywords: ['c'] })
        .expect(200);
      expect(response.body.keywords).toEqual(['c']);
    });

    it('runs the validators of the sub-fields it sets', async () => {
      await expectRefusedWrite(
        () =>
          t
            .http()
            .patch(`/article/${slug}`)
            .send({ meta: { views: -1 } }),
        400,
        'MR_VALIDATION_FAILED',
        'meta.views',
      );
    });

    it('refuses to replace an array of sub-documents that hold hidden fields (it would erase them)', async () => {
      await expectRefusedWrite(
        () =>
          t
            .http()
            .put(`/article/${slug}`)
            .send({ lines: [{ text: 'x' }] }),
        400,
        'MR_INVALID_BODY',
        'lines',
      );
    });

    it('leaves out null on create, as "no value"', async () => {
      const response = await t
        .http()
        .post('/article')
        .send({ slug: `${slug}-new`, title: 'New', subtitle: null, meta: { views: null, likes: 1 } })
        .expect(201);
      expect(response.body).not.toHaveProperty('subtitle');
      expect(response.body.meta).toEqual({ likes: 1 });
    });
  });

  describe('a merge never creates a nested object without the fields a new one requires', () => {
    const venue = async (body: Record<string, unknown> = {}) => String((await t.connection.model('Venue').create(Object.assign({ name: 'Hall' }, body)))._id);
    const HALL_ADDRESS = { street: '1 Quai', city: 'Lyon' };

    it.each(['put', 'patch'] as const)(
      '%s of part of a sub-document the document lacks is a 400 naming what a new one needs, and changes nothing',
      async (method) => {
        const id = await venue();
        await expectRefusedUnchanged(
          t.connection,
          () =>
            t
              .http()
              [method](`/venue/${id}`)
              .send({ address: { zip: '69001' } }),
          {
            status: 400,
            code: 'MR_VALIDATION_FAILED',
            details: [
              { path: 'address.street', message: 'street is required' },
              { path: 'address.city', message: 'city is required' },
            ],
          },
        );
        expect(await raw('venues', id)).not.toHaveProperty('address');
      },
    );

    it('merges part of a sub-document the document holds, keeping its other fields', async () => {
      const id = await venue({ address: HALL_ADDRESS });
      const response = await t
        .http()
        .patch(`/venue/${id}`)
        .send({ address: { zip: '69002' } })
        .expect(200);
      expect(response.body.address).toEqual({ ...HALL_ADDRESS, zip: '69002' });
      expect((await raw('venues', id))?.address).toEqual({ ...HALL_ADDRESS, zip: '69002' });
    });

    it('creates a sub-document the body gives whole', async () => {
      const id = await venue();
      const response = await t.http().patch(`/venue/${id}`).send({ address: HALL_ADDRESS }).expect(200);
      expect(response.body.address).toEqual(HALL_ADDRESS);
    });

    it('checks at every depth, and names only the objects the document lacks', async () => {
      const id = await venue({ address: HALL_ADDRESS });
      await expectRefusedUnchanged(
        t.connection,
        () =>
          t
            .http()
            .patch(`/venue/${id}`)
            .send({ capacity: 300, address: { zip: '69003', geo: { lat: 45.7 } } }),
        {
          status: 400,
          code: 'MR_VALIDATION_FAILED',
          details: [{ path: 'address.geo.lng', message: 'lng is required' }],
        },
      );
      const response = await t
        .http()
        .patch(`/venue/${id}`)
        .send({ address: { geo: { lat: 45.7, lng: 4.8 } } })
        .expect(200);
      expect(response.body.address).toEqual({ ...HALL_ADDRESS, geo: { lat: 45.7, lng: 4.8 } });
      await t
        .http()
        .patch(`/venue/${id}`)
        .send({ address: { geo: { lng: 4.9 } } })
        .expect(200);
      expect((await raw('venues', id))?.address.geo).toEqual({ lat: 45.7, lng: 4.9 });
    });

    it('answers a missing document with its 404 and a stale If-Match with its 412, before the missing fields', async () => {
      expectError(
        await t
          .http()
          .patch(`/venue/${new Types.ObjectId().toHexString()}`)
          .send({ address: { zip: '1' } }),
        404,
        'MR_NOT_FOUND',
      );
      const id = await venue();
      const stale = await t
        .http()
        .patch(`/venue/${id}`)
        .set('If-Match', `"${id}-7"`)
        .send({ address: { zip: '1' } });
      expectError(stale, 412, 'MR_PRECONDITION_FAILED');
    });
  });

  describe('a nested object takes an object', () => {
    it.each([true, 'text', 42, ['a']])('PUT /account/:id {"profile": %j} is a 400 MR_VALIDATION_FAILED at profile, the data unchanged', async (value) => {
      const account = (
        await t
          .http()
          .post('/account')
          .send({ email: `p${new Types.ObjectId()}@example.com`, profile: { displayName: 'P' } })
          .expect(201)
      ).body._id;
      await expectRefusedWrite(() => t.http().put(`/account/${account}`).send({ profile: value }), 400, 'MR_VALIDATION_FAILED', 'profile');
      await expectRefusedWrite(() => t.http().post('/account').send({ email: 'q@example.com', profile: value }), 400, 'MR_VALIDATION_FAILED', 'profile');
    });
  });

  describe('a duplicate key is a 409 naming the field, on create and update, on every engine', () => {
    beforeAll(async () => {
      await t.http().post('/article').send({ slug: 'hello-nest', title: 'Hello' }).expect(201);
      await t.http().post('/article').send({ slug: 'mongo-tips', title: 'Tips' }).expect(201);
    });

    it('POST /article with a slug in use', async () => {
      const response = await t.http().post('/article').send({ slug: 'hello-nest', title: 'Again' });
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(response.body.details).toEqual([{ path: 'slug', message: 'must be unique' }]);
    });

    it.each(['put', 'patch'] as const)('%s /article/mongo-tips {"slug":"hello-nest"}', async (method) => {
      const response = await t.http()[method]('/article/mongo-tips').send({ slug: 'hello-nest' });
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(response.body.details).toEqual([{ path: 'slug', message: 'must be unique' }]);
      expect(await t.connection.db!.collection('articles').countDocuments({ slug: 'mongo-tips' })).toBe(1);
    });
  });

  describe('hostile bodies are a 400 naming the place, never a 500 nor a silent change', () => {
    it.each([
      ['a BSON type marker', { name: 'x', members: { _bsontype: 'ObjectId' } }, 'members._bsontype'],
      ['a BSON type marker in an array', { name: 'x', members: [{ _bsontype: 'ObjectId', id: 'abc' }] }, 'members.0._bsontype'],
    ])('%s is a 400, never a 500', async (_label, body, path) => {
      await expectRefusedWrite(() => t.http().post('/team').send(body), 400, 'MR_INVALID_BODY', path);
    });

    it.each(['post', 'put'] as const)('arrays nested 5000 deep on %s are a 400, never a stack overflow', async (method) => {
      const user = (await t.http().post('/user').send({ niceName: 'Deep' }).expect(201)).body._id;
      const text = `{"niceName":${'['.repeat(5000)}${']'.repeat(5000)}}`;
      const url = method === 'post' ? '/user' : `/user/${user}`;
      const response = await t.http()[method](url).set('content-type', 'application/json').send(text);
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.message).toContain('nested too deeply');
    });

    it('refuses an id field value longer than 256 characters, so that what is created can be addressed', async () => {
      await expectRefusedWrite(
        () =>
          t
            .http()
            .post('/article')
            .send({ slug: 'a'.repeat(257), title: 'Long' }),
        400,
        'MR_VALIDATION_FAILED',
        'slug',
      );
      await t
        .http()
        .post('/article')
        .send({ slug: 'a'.repeat(256), title: 'Long enough' })
        .expect(201);
      await t
        .http()
        .get(`/article/${'a'.repeat(256)}`)
        .expect(200);
      await t
        .http()
        .delete(`/article/${'a'.repeat(256)}`)
        .expect(200);
    });

    it('answers a path identifier longer than 256 characters with a 400 MR_INVALID_ID', async () => {
      expectError(await t.http().get(`/article/${'b'.repeat(10_000)}`), 400, 'MR_INVALID_ID');
    });

    it('answers what was stored: a lone surrogate is stored, and echoed, as U+FFFD', async () => {
      const response = await t.http().post('/user').set('content-type', 'application/json').send('{"niceName":"a\\ud800b"}').expect(201);
      expect(response.body.niceName).toBe('a\ufffdb');
      expect((await raw('entrepreneurs', response.body._id))?.niceName).toBe('a\ufffdb');
      expect((await t.http().get(`/user/${response.body._id}`).expect(200)).body.niceName).toBe(response.body.niceName);
    });
  });
}
