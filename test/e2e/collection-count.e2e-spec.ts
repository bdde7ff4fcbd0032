/**
 * `status.count` (the documents in the collection) stays right as the collection changes. (On FerretDB
 * v1 with PostgreSQL, `$collStats` counts are PostgreSQL's row estimates: -1 until the table is analysed,
 * stale after; this test is what refuses them as `count`.)
 */
import { ModelRoutesModule } from '../../src/index.js';
import { Company, Entrepreneur } from '../fixtures/models.js';
import { bootTestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';

const engine = useEngine();

it('status.count follows inserts and deletes, on filtered and unfiltered searches', async () => {
  const { http } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }) });
  const status = async (query: string) => (await http().get(`/companies${query}`).expect(200)).body.status;
  // Before the collection exists.
  expect(await status('?employees[gte]=10')).toMatchObject({ count: 0, match_count: 0 });
  const ids: string[] = [];
  for (const employees of [5, 10, 20]) ids.push((await http().post('/company').send({ niceName: `c${employees}`, employees }).expect(201)).body._id);
  expect(await status('?employees[gte]=10')).toMatchObject({ count: 3, match_count: 2 });
  expect(await status('')).toMatchObject({ count: 3, match_count: 3 });
  await http().delete(`/company/${ids[2]}`).expect(200);
  expect(await status('?employees[gte]=10')).toMatchObject({ count: 2, match_count: 1 });
  await http().post('/company').send({ niceName: 'c30', employees: 30 }).expect(201);
  expect(await status('?employees[gte]=10')).toMatchObject({ count: 3, match_count: 2 });
});
