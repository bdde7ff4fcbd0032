import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { Response } from 'supertest';
import { SEARCH_PARSED_CHANNEL } from '../../../src/query/search-params.parser.js';
import { Agency, Agent, Plain } from '../../fixtures/serialization-models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function routeCallSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let agency: string;

  /** The searches parsed while the app served one request (the app runs in this process; requests are sent one at a time). */
  let parses = 0;
  const count = () => void parses++;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      resources: [Agent, Agency, Plain],
      serializationGroups: (request: { headers: Record<string, string | undefined> }) => (request.headers['x-role'] === 'admin' ? ['admin'] : []),
    });
    const stored = await t.connection.model('Agency').create({ name: 'Circus', budget: 90000 });
    agency = String(stored._id);
    const agent = await t.connection.model('Agent').create({ codename: 'falcon', salary: 5000, agency: stored._id });
    await t.connection.model('Agency').updateOne({ _id: stored._id }, { $set: { members: [agent._id] } });
    subscribe(SEARCH_PARSED_CHANNEL, count);
  });
  afterAll(async () => {
    unsubscribe(SEARCH_PARSED_CHANNEL, count);
    await t?.close();
  });

  async function parsesOf(send: () => PromiseLike<Response>): Promise<[number, Response]> {
    parses = 0;
    const response = await send();
    return [parses, response];
  }

  describe('one call per request: the search is parsed once', () => {
    const SEARCHES: Array<[string, (role: Record<string, string>) => PromiseLike<Response>]> = [
      ['GET search', (role) => t.http().get('/agents?codename=falcon&sort=codename').set(role)],
      [
        'POST search',
        (role) =>
          t
            .http()
            .post('/agents')
            .set(role)
            .send({ query: { codename: 'falcon' }, sort: { codename: 1 } }),
      ],
      ['GET reverse', (role) => t.http().get(`/agency/${agency}/agents/agency?codename=falcon`).set(role)],
      [
        'POST reverse',
        (role) =>
          t
            .http()
            .post(`/agency/${agency}/agents/agency`)
            .set(role)
            .send({ query: { codename: 'falcon' } }),
      ],
      ['GET list (a reference array)', (role) => t.http().get(`/agency/${agency}/members?codename=falcon`).set(role)],
      ['GET search of a model without views', () => t.http().get('/plains?limit=5')],
      ['POST search of a model without views', () => t.http().post('/plains').send({ limit: 5 })],
    ];

    it.each(SEARCHES)('%s, for each group', async (_name, send) => {
      for (const role of [{}, { 'x-role': 'admin' }] as Array<Record<string, string>>) {
        const [count, response] = await parsesOf(() => send(role));
        expect([response.status, count]).toEqual([200, 1]);
      }
    });

    it('a search on a field the groups do not see is refused after one parse', async () => {
      const [count, response] = await parsesOf(() =>
        t
          .http()
          .post('/agents')
          .send({ query: { salary: 5000 } }),
      );
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(count).toBe(1);
      const [adminCount, admin] = await parsesOf(() => t.http().get('/agents?salary=5000').set({ 'x-role': 'admin' }));
      expect([admin.status, admin.body.result.length, adminCount]).toEqual([200, 1, 1]);
    });
  });
}
