import { Company, Entrepreneur } from '../fixtures/models.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { useEngine } from '../support/engine.js';
import { expectError } from '../support/expect-error.js';

const engine = useEngine();
let t: TestApp | undefined;
afterAll(() => t?.close());

// Stopping the database needs an engine this process started (FerretDB); a server given by
// MONGODB_URI is shared and must not be stopped, so there this test cannot run.
const itStopsTheEngine = process.env.MONGODB_URI ? it.skip : it;

itStopsTheEngine('answers 503 while the database is down, then recovers without restarting the app', async () => {
  t = await createTestApp(
    engine,
    { resources: [Entrepreneur, Company] },
    { serverSelectionTimeoutMS: 1000, heartbeatFrequencyMS: 500 },
  );
  const created = await t.http().post('/company').send({ niceName: 'Acme', employees: 3 }).expect(201);

  await engine.get().suspend!();
  try {
    await expectUnavailable(created.body._id);
  } finally {
    await engine.get().resume!();
  }
  const deadline = Date.now() + 20000;
  let status = 0;
  while (Date.now() < deadline && status !== 200) {
    status = (await t.http().get('/companies')).status;
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  expect(status).toBe(200);
  const after = await t.http().get(`/company/${created.body._id}`).expect(200);
  expect(after.body).toMatchObject({ niceName: 'Acme', employees: 3 });
}, 60000);

async function expectUnavailable(id: string): Promise<void> {
  const requests = [
    () => t!.http().get(`/company/${id}`),
    () => t!.http().get('/companies'),
    () => t!.http().post('/companies').send({ query: { niceName: 'Acme' } }),
    () => t!.http().post('/company').send({ niceName: 'Globex' }),
    () => t!.http().put(`/company/${id}`).send({ employees: 4 }),
    () => t!.http().delete(`/company/${id}`),
  ];
  for (const request of requests) {
    const response = await request();
    expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
    expect(response.body.message).toBe('The database is unavailable; try again later');
  }
}
