/**
 * `status.count` (the documents in the collection) stays right as the collection changes. It comes
 * from `$collStats` (collection metadata): exact on MongoDB and on FerretDB's SQLite backend. On
 * FerretDB's PostgreSQL backend the stage answers PostgreSQL's row estimate, -1 until the table is
 * first analysed: the library then asks `estimatedDocumentCount()` (exact there), and the test
 * clusters run without autovacuum so that no ANALYZE turns that into a stale estimate mid-test.
 * (The unit test `collection-count.spec.ts` covers the fallbacks one by one.)
 */
import { ModelRoutesModule } from '../../../src/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function collectionCountSpec(): void {
  const engine = useEngine();

  it('status.count follows inserts and deletes, on filtered and unfiltered searches', async () => {
    const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }) });
    const status = async (query: string) => (await http().get(`/companies${query}`).expect(200)).body.status;
    // Before the collection exists.
    expect(await status('?employees[gte]=10')).toMatchObject({ count: 0, match_count: 0 });
    const ids: string[] = [];
    for (const employees of [5, 10, 20])
      ids.push(
        (
          await http()
            .post('/company')
            .send({ niceName: `c${employees}`, employees })
            .expect(201)
        ).body._id,
      );
    expect(await status('?employees[gte]=10')).toMatchObject({ count: 3, match_count: 2 });
    expect(await status('')).toMatchObject({ count: 3, match_count: 3 });
    await http().delete(`/company/${ids[2]}`).expect(200);
    expect(await status('?employees[gte]=10')).toMatchObject({ count: 2, match_count: 1 });
    await http().post('/company').send({ niceName: 'c30', employees: 30 }).expect(201);
    expect(await status('?employees[gte]=10')).toMatchObject({ count: 3, match_count: 2 });
  });
}
