/**
 * References name existing documents (issue 9, items 5–8): writes are checked per reference field,
 * a resource identified by a slug is referenced by its slug or its `_id` (the `_id` is stored),
 * dangling ids are reported, arrays of references are indexed, and a reverse route whose parent
 * does not exist is a 404, not an empty list.
 */
import { Types } from 'mongoose';
import { Article, Author, Draft, Remark, Tag } from '../../fixtures/blog-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function referenceIntegritySpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let ada: string;
  let news: string;
  let tips: string;
  let article: { _id: string; slug: string };

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Author, Tag, Article, Remark, Draft] });
    ada = (await t.http().post('/author').send({ name: 'Ada' }).expect(201)).body._id;
    news = (await t.http().post('/tag').send({ label: 'news' }).expect(201)).body._id;
    tips = (await t.http().post('/tag').send({ label: 'tips' }).expect(201)).body._id;
    article = (
      await t
        .http()
        .post('/article')
        .send({ slug: 'hello-nest', title: 'Hello', author: ada, tags: [news] })
        .expect(201)
    ).body;
  });
  afterAll(() => t?.close());

  async function expectRefused(send: () => PromiseLike<unknown>, path: string, id: string): Promise<void> {
    await expectRefusedUnchanged(t.connection, send, {
      status: 400,
      code: 'MR_REFERENCE_NOT_FOUND',
      details: [{ path, message: expect.stringContaining(`'${id}'`) }],
    });
  }

  describe('a written reference must name a document', () => {
    it('refuses a single reference to no document, on create, PUT and PATCH', async () => {
      await expectRefused(() => t.http().post('/article').send({ slug: 'ghost', title: 'Ghost', author: MISSING_ID }), 'author', MISSING_ID);
      await expectRefused(() => t.http().put('/article/hello-nest').send({ author: MISSING_ID }), 'author', MISSING_ID);
      await expectRefused(() => t.http().patch('/article/hello-nest').send({ author: MISSING_ID }), 'author', MISSING_ID);
    });

    it('refuses an array element that names no document, naming its position', async () => {
      await expectRefused(
        () =>
          t
            .http()
            .post('/article')
            .send({ slug: 'ghost', title: 'Ghost', tags: [news, MISSING_ID] }),
        'tags.1',
        MISSING_ID,
      );
      await expectRefused(
        () =>
          t
            .http()
            .put('/article/hello-nest')
            .send({ tags: [MISSING_ID] }),
        'tags.0',
        MISSING_ID,
      );
    });

    it('refuses null inside an array of references, which would name nothing', async () => {
      for (const send of [
        () =>
          t
            .http()
            .post('/article')
            .send({ slug: 'nulls', title: 'N', tags: [null] }),
        () =>
          t
            .http()
            .put('/article/hello-nest')
            .send({ tags: [news, null] }),
      ]) {
        const response = await expectRefusedUnchanged(t.connection, send, { status: 400, code: 'MR_VALIDATION_FAILED' });
        expect(response.body.details[0].path).toMatch(/^tags\.\d$/);
      }
    });

    it('accepts existing references, and null to clear one', async () => {
      const response = await t
        .http()
        .patch('/article/hello-nest')
        .send({ tags: [news, tips], author: ada })
        .expect(200);
      expect(response.body).toMatchObject({ author: ada, tags: [news, tips] });
      const cleared = await t.http().patch('/article/hello-nest').send({ author: null }).expect(200);
      expect(cleared.body).not.toHaveProperty('author');
      await t.http().patch('/article/hello-nest').send({ author: ada }).expect(200);
    });

    it('leaves an unchecked field (checkExists: false) to the schema: any ObjectId is stored', async () => {
      const response = await t.http().post('/draft').send({ author: MISSING_ID }).expect(201);
      expect(response.body.author).toBe(MISSING_ID);
    });

    it('still refuses a malformed id as a value that cannot be cast', async () => {
      const response = await t.http().post('/draft').send({ author: 'not-an-id' });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details[0].path).toBe('author');
    });
  });

  describe('a dangling id in an array is reported', () => {
    it('lists it in status.missing of the forward route', async () => {
      const doomed = (await t.http().post('/tag').send({ label: 'doomed' }).expect(201)).body._id;
      await t
        .http()
        .post('/article')
        .send({ slug: 'dangling', title: 'D', tags: [news, doomed] })
        .expect(201);
      await t.http().delete(`/tag/${doomed}`).expect(200);
      const response = await t.http().get('/article/dangling/tags').expect(200);
      expect(response.body.result.map((tag: { _id: string }) => tag._id)).toEqual([news]);
      expect(response.body.status).toMatchObject({ search_count: 1, match_count: 1, missing: [doomed] });
    });
  });

  describe('arrays of references are indexed', () => {
    it('has an index on tags, as on the single reference author', async () => {
      const indexes = await t.connection.db!.collection('articles').listIndexes().toArray();
      const keys = indexes.map((index) => Object.keys(index.key).join());
      expect(keys).toEqual(expect.arrayContaining(['author', 'tags', 'slug']));
    });
  });

  describe('a resource identified by a slug', () => {
    it('is referenced by its slug on write, and its _id is stored', async () => {
      const remark = await t.http().post('/remark').send({ text: 'Nice', article: 'hello-nest' }).expect(201);
      expect(remark.body.article).toBe(article._id);
      const stored = await t.connection.db!.collection('remarks').findOne({ _id: new Types.ObjectId(remark.body._id) });
      expect(stored?.article).toEqual(new Types.ObjectId(article._id));
    });

    it('is referenced by its _id as well', async () => {
      const remark = await t.http().post('/remark').send({ text: 'By id', article: article._id }).expect(201);
      expect(remark.body.article).toBe(article._id);
    });

    it('refuses a slug that names no article', async () => {
      await expectRefused(() => t.http().post('/remark').send({ text: 'Lost', article: 'no-such-article' }), 'article', 'no-such-article');
    });

    it('serves its reverse route by slug; a parent that does not exist is a 404, not an empty list', async () => {
      const response = await t.http().get('/article/hello-nest/remarks/article').expect(200);
      expect(response.body.status.match_count).toBeGreaterThanOrEqual(2);
      expectError(await t.http().get(`/article/${article._id}/remarks/article`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().get('/article/no-such-article/remarks/article'), 404, 'MR_NOT_FOUND');
      expectError(await t.http().post('/article/no-such-article/remarks/article').send({}), 404, 'MR_NOT_FOUND');
    });

    it('tells "no such parent" (404) from "no children" (200, empty) on an _id-identified parent too', async () => {
      const lonely = (await t.http().post('/author').send({ name: 'Lonely' }).expect(201)).body._id;
      const empty = await t.http().get(`/author/${lonely}/articles/author`).expect(200);
      expect(empty.body.result).toEqual([]);
      expectError(await t.http().get(`/author/${MISSING_ID}/articles/author`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().post(`/author/${MISSING_ID}/articles/author`).send({ query: {} }), 404, 'MR_NOT_FOUND');
    });
  });
}
