import { Company, Entrepreneur } from '../fixtures/models.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';

const engine = useEngine();
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp(engine, { resources: [Entrepreneur, Company] });
});
afterAll(() => t?.close());

it('creates and reads', async () => {
  const user = await t.http().post('/user').send({ niceName: 'Ada', birth: '1815-12-10' });
  console.log(user.status, user.headers.location, user.body);
  const company = await t.http().post('/company').send({ niceName: 'Acme', owner: user.body._id, employees: 3 });
  console.log(company.status, company.body);
  console.log((await t.http().get(`/company/${company.body._id}/owner`)).body);
  console.log(JSON.stringify((await t.http().get(`/user/${user.body._id}/companies/owner`)).body));
  console.log(JSON.stringify((await t.http().post(`/companies`).send({ query: { $where: 'x' } })).body));
  console.log(JSON.stringify((await t.http().get(`/companies?employees=abc`)).body));
});
