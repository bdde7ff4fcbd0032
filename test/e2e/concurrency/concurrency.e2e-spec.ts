/**
 * Concurrent writes to one document lose nothing (issue 9, finding A5), on both FerretDB
 * backends, whose single-document updates are not atomic (DESIGN.md section 6): the repository
 * serialises the writes of each document within the process there. On MongoDB, which is atomic
 * per document, the same races must hold as well.
 */
import { findPostgresBin, type EngineChoice } from '../../../scripts/mongo-engine.js';
import { Article, Author, Tag } from '../../fixtures/blog-models.js';
import { Company, Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function concurrencySpec(): void {
  const TRIALS = 10;

  const targets: Array<[string, EngineChoice | undefined, string | undefined]> = process.env.MONGODB_URI
    ? [['the engine of MONGODB_URI', undefined, undefined]]
    : [
        ['FerretDB on SQLite', 'ferretdb-sqlite', undefined],
        ['FerretDB on PostgreSQL', 'ferretdb-postgresql', findPostgresBin() ? undefined : 'no PostgreSQL server binaries on this machine'],
      ];

  describe.each(targets)('%s', (_label, choice, unavailable) => {
    if (unavailable) {
      it.skip(`every race below [skipped: ${unavailable}]`, () => undefined);
      return;
    }
    const engine = useEngine(choice);
    let t: TestApp;
    beforeAll(async () => {
      // No admission limit: the races are the subject, and a limit would let only a few of the concurrent requests reach the database at once.
      t = await createTestApp(engine, { resources: [Entrepreneur, Company, Team, Author, Tag, Article], admission: false });
      // One listening server: supertest would otherwise open (and close) one per request, which
      // concurrent requests cannot share.
      await t.app.listen(0, '127.0.0.1');
    });
    afterAll(() => t?.close());

    it.each(Array.from({ length: TRIALS }, (_, trial) => trial + 1))('concurrent PUTs and PATCHes of different fields all land (trial %i)', async (trial) => {
      const id = (
        await t
          .http()
          .post('/article')
          .send({ slug: `race-${trial}`, title: 'Start' })
          .expect(201)
      ).body.slug;
      const changes = [{ title: 'Title' }, { subtitle: 'Sub' }, { status: 'published' }, { keywords: ['k'] }, { meta: { views: 3 } }, { meta: { likes: 4 } }];
      const responses = await Promise.all(changes.map((change, n) => t.http()[n % 2 ? 'patch' : 'put'](`/article/${id}`).send(change)));
      expect(responses.map((response) => response.status)).toEqual(changes.map(() => 200));
      const stored = (await t.http().get(`/article/${id}`).expect(200)).body;
      expect(stored).toMatchObject({ title: 'Title', subtitle: 'Sub', status: 'published', keywords: ['k'], meta: { views: 3, likes: 4 } });
    });

    it('40 concurrent DELETEs of one document: exactly one 200, the others 404', async () => {
      const id = (await t.http().post('/user').send({ niceName: 'Doomed' }).expect(201)).body._id;
      const statuses = (await Promise.all(Array.from({ length: 40 }, () => t.http().delete(`/user/${id}`)))).map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 404)).toHaveLength(39);
    });

    it('6 concurrent relationship adds of different users: all 200, all 6 stored', async () => {
      const users = await Promise.all(
        Array.from(
          { length: 6 },
          async (_, n) =>
            (
              await t
                .http()
                .post('/user')
                .send({ niceName: `Member ${n}` })
                .expect(201)
            ).body._id as string,
        ),
      );
      const team = (await t.http().post('/team').send({ name: 'Crew' }).expect(201)).body._id;
      const responses = await Promise.all(users.map((user) => t.http().post(`/team/${team}/members/${user}`)));
      expect(responses.map((response) => response.status)).toEqual(users.map(() => 200));
      expect([...(await t.http().get(`/team/${team}`).expect(200)).body.members].sort()).toEqual([...users].sort());
    });
  });
}
