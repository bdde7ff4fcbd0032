import { Book, Review } from '../../fixtures/extend-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function slugIdentifiersSpec(): void {
  /** Resources identified by another field than `_id` (`id: 'slug'`): every route, references included. */

  const engine = useEngine();

  describe("@GeneratedResource({ id: 'slug' }) on a field not declared unique", () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(engine, { resources: [Book, Review] });
    });
    afterAll(() => t?.close());

    let dune: { _id: string; slug: string; title: string };
    let emma: { _id: string };
    beforeEach(async () => {
      await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
      dune = (await t.http().post('/book').send({ slug: 'dune', title: 'Dune', pages: 412 }).expect(201)).body;
      emma = (await t.http().post('/book').send({ slug: 'emma', title: 'Emma' }).expect(201)).body;
    });

    it('POST /book answers 201 with a Location built from the slug', async () => {
      const response = await t.http().post('/book').send({ slug: 'ulysses', title: 'Ulysses' }).expect(201);
      expect(response.body).toEqual({ _id: expect.any(String), slug: 'ulysses', title: 'Ulysses' });
      expect(response.headers.location).toBe('/book/ulysses');
    });

    it('a slug that needs escaping is escaped in Location, and that Location answers', async () => {
      const response = await t.http().post('/book').send({ slug: 'le petit prince', title: 'Le Petit Prince' }).expect(201);
      expect(response.headers.location).toBe('/book/le%20petit%20prince');
      expect((await t.http().get(response.headers.location).expect(200)).body.title).toBe('Le Petit Prince');
    });

    it('GET /book/<slug> returns the book', async () => {
      const response = await t.http().get('/book/dune').expect(200);
      expect(response.body).toEqual({ _id: dune._id, slug: 'dune', title: 'Dune', pages: 412 });
    });

    it('GET /book/<_id> is not a way around the slug: 404', async () => {
      expectError(await t.http().get(`/book/${dune._id}`), 404, 'MR_NOT_FOUND');
    });

    it('GET /book/<unknown slug> answers 404 MR_NOT_FOUND naming the slug', async () => {
      const response = await t.http().get('/book/nope');
      expectError(response, 404, 'MR_NOT_FOUND');
      expect(response.body.message).toContain("'nope'");
    });

    it('PUT /book/<slug> changes only the fields sent', async () => {
      const response = await t.http().put('/book/dune').send({ title: 'Dune (1965)' }).expect(200);
      expect(response.body).toEqual({ _id: dune._id, slug: 'dune', title: 'Dune (1965)', pages: 412 });
      expect((await t.http().get('/book/dune').expect(200)).body.title).toBe('Dune (1965)');
    });

    it('PUT /book/<unknown slug> answers 404', async () => {
      expectError(await t.http().put('/book/nope').send({ title: 'x' }), 404, 'MR_NOT_FOUND');
    });

    it('DELETE /book/<slug> deletes that book only', async () => {
      const response = await t.http().delete('/book/dune').expect(200);
      expect(response.body).toEqual({ _id: dune._id, slug: 'dune', title: 'Dune', pages: 412 });
      expectError(await t.http().get('/book/dune'), 404, 'MR_NOT_FOUND');
      await t.http().get('/book/emma').expect(200);
    });

    it('DELETE /book/<unknown slug> answers 404 and deletes nothing', async () => {
      expectError(await t.http().delete('/book/nope'), 404, 'MR_NOT_FOUND');
      expect(await t.connection.model('Book').countDocuments()).toBe(2);
    });

    it('the module created a unique index on slug', async () => {
      const indexes = await t.connection.model('Book').collection.indexes();
      expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ key: { slug: 1 }, unique: true })]));
    });

    it('a duplicate slug on create is a 409 MR_DUPLICATE_KEY, and is not stored', async () => {
      const response = await t.http().post('/book').send({ slug: 'dune', title: 'Another Dune' });
      expectError(response, 409, 'MR_DUPLICATE_KEY');
      expect(await t.connection.model('Book').countDocuments({ slug: 'dune' })).toBe(1);
      expect((await t.http().get('/book/dune').expect(200)).body.title).toBe('Dune');
    });

    describe('reference routes with slugs', () => {
      let reviews: Array<{ _id: string; text: string; book: string }>;
      beforeEach(async () => {
        reviews = [];
        for (const [text, book] of [
          ['great', dune._id],
          ['long', dune._id],
          ['witty', emma._id],
        ]) {
          reviews.push((await t.http().post('/review').send({ text, book }).expect(201)).body);
        }
      });

      it('GET /review/:review_id/book returns the book, slug included', async () => {
        const response = await t.http().get(`/review/${reviews[2]._id}/book`).expect(200);
        expect(response.body).toEqual({ _id: emma._id, slug: 'emma', title: 'Emma' });
      });

      it('GET /book/<slug>/reviews/book lists the reviews of that book only', async () => {
        const response = await t.http().get('/book/dune/reviews/book?sort=text').expect(200);
        expect(response.body.status).toEqual({ count: 3, search_count: 2, match_count: 2, counted: 'exact', limit: 20, skip: 0 });
        expect(response.body.result).toEqual([
          { _id: reviews[0]._id, text: 'great', book: dune._id },
          { _id: reviews[1]._id, text: 'long', book: dune._id },
        ]);
      });

      it('POST /book/<slug>/reviews/book ANDs the query with the book', async () => {
        const response = await t
          .http()
          .post('/book/dune/reviews/book')
          .send({ query: { text: { $in: ['long', 'witty'] } } })
          .expect(200);
        expect(response.body.result.map((review: { text: string }) => review.text)).toEqual(['long']);
      });

      it('GET /book/<unknown slug>/reviews/book answers 404 MR_NOT_FOUND naming the slug: no such book, not "no reviews"', async () => {
        const response = await t.http().get('/book/nope/reviews/book');
        expectError(response, 404, 'MR_NOT_FOUND');
        expect(response.body.message).toBe("Book 'nope' not found");
      });

      it('POST /book/<unknown slug>/reviews/book answers 404, whatever the query', async () => {
        const response = await t
          .http()
          .post('/book/nope/reviews/book')
          .send({ query: { $or: [{ book: { $exists: true } }, { text: 'great' }] } });
        expectError(response, 404, 'MR_NOT_FOUND');
      });

      it('GET /book/<_id>/reviews/book is not a way around the slug: 404', async () => {
        expectError(await t.http().get(`/book/${dune._id}/reviews/book`), 404, 'MR_NOT_FOUND');
      });
    });
  });
}
