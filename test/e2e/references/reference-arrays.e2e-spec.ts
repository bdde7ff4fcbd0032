import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { GeneratedResource } from '../../../src/index.js';
import { Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function referenceArraysSpec(): void {
  /** DESIGN §3: an array of references (`members: [{ type: ObjectId, ref }]`). */
  const engine = useEngine();
  let t: TestApp;
  let ada: string;
  let bob: string;
  let cy: string;
  let crew: string;
  let empty: string;

  @GeneratedResource({ references: { members: { add: false, remove: false } } })
  @Schema()
  class Squad {
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Entrepreneur' }] }) members?: Types.ObjectId[];
  }

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Team] });
  });
  beforeEach(async () => {
    await Promise.all(Object.values(t.connection.models).map((model) => model.deleteMany({})));
    const user = async (niceName: string) => (await t.http().post('/user').send({ niceName }).expect(201)).body._id as string;
    [ada, bob, cy] = [await user('Ada'), await user('Bob'), await user('Cy')];
    crew = (
      await t
        .http()
        .post('/team')
        .send({ name: 'Crew', members: [ada, bob] })
        .expect(201)
    ).body._id;
    empty = (await t.http().post('/team').send({ name: 'Empty' }).expect(201)).body._id;
    await t
      .http()
      .post('/team')
      .send({ name: 'Solo', members: [bob] })
      .expect(201);
  });

  const names = (body: { result: Array<{ niceName?: string; name?: string }> }) => body.result.map((item) => item.niceName ?? item.name);

  describe('GET /team/:team_id/members', () => {
    it('answers the envelope of the referenced documents', async () => {
      const response = await t.http().get(`/team/${crew}/members?sort=niceName`).expect(200);
      expect(names(response.body)).toEqual(['Ada', 'Bob']);
      expect(response.body.status).toEqual({ count: 3, search_count: 2, match_count: 2, counted: 'exact', limit: 20, skip: 0, missing: [] });
      expect(response.body.result[0]).toEqual({ _id: ada, niceName: 'Ada' });
    });

    it('takes limit, skip, sort and filters over the referenced documents', async () => {
      const response = await t.http().get(`/team/${crew}/members?sort=-niceName&limit=1`).expect(200);
      expect(names(response.body)).toEqual(['Bob']);
      expect(response.body.status).toMatchObject({ search_count: 1, match_count: 2, counted: 'exact', limit: 1 });
      expect(names((await t.http().get(`/team/${crew}/members?niceName=Ada`).expect(200)).body)).toEqual(['Ada']);
    });

    it('answers an empty envelope when the array is empty', async () => {
      const response = await t.http().get(`/team/${empty}/members`).expect(200);
      expect(response.body).toEqual({ status: { count: 3, search_count: 0, match_count: 0, counted: 'exact', limit: 20, skip: 0, missing: [] }, result: [] });
    });

    it('reports the identifiers that name no document (deleted) in status.missing, never dropping them silently', async () => {
      await t.http().delete(`/user/${bob}`).expect(200);
      const response = await t.http().get(`/team/${crew}/members`).expect(200);
      expect(names(response.body)).toEqual(['Ada']);
      expect(response.body.status).toMatchObject({ search_count: 1, match_count: 1, missing: [bob] });
      // The array still holds both ids: the dangling one is reported, not removed.
      expect((await t.http().get(`/team/${crew}`).expect(200)).body.members).toEqual([ada, bob]);
    });

    it('answers 404 for a missing team and 400 for a malformed id', async () => {
      expectError(await t.http().get(`/team/${MISSING_ID}/members`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().get('/team/nope/members'), 400, 'MR_INVALID_ID');
    });
  });

  describe('GET and POST /user/:user_id/teams/members', () => {
    it('answers the teams whose array contains the user', async () => {
      const response = await t.http().get(`/user/${bob}/teams/members?sort=name`).expect(200);
      expect(names(response.body)).toEqual(['Crew', 'Solo']);
      expect(response.body.status).toMatchObject({ count: 3, match_count: 2 });
      expect(names((await t.http().get(`/user/${cy}/teams/members`).expect(200)).body)).toEqual([]);
    });

    it('ANDs the body query with the membership', async () => {
      const response = await t
        .http()
        .post(`/user/${bob}/teams/members`)
        .send({ query: { name: { $regex: '^s', $options: 'i' } } })
        .expect(200);
      expect(names(response.body)).toEqual(['Solo']);
    });
  });

  describe('POST and DELETE /team/:team_id/members/:user_id', () => {
    it('adds a reference once and answers the updated team', async () => {
      const added = await t.http().post(`/team/${crew}/members/${cy}`).expect(200);
      expect(added.body).toEqual({ _id: crew, name: 'Crew', members: [ada, bob, cy] });
      const again = await t.http().post(`/team/${crew}/members/${cy}`).expect(200);
      expect(again.body.members).toEqual([ada, bob, cy]);
    });

    it('removes a reference, and answers 200 when it was not there', async () => {
      expect((await t.http().delete(`/team/${crew}/members/${ada}`).expect(200)).body.members).toEqual([bob]);
      expect((await t.http().delete(`/team/${crew}/members/${cy}`).expect(200)).body.members).toEqual([bob]);
    });

    it('refuses a referenced document that does not exist, and a missing team, without changing data', async () => {
      const unknownUser = await t.http().post(`/team/${crew}/members/${MISSING_ID}`);
      expectError(unknownUser, 404, 'MR_NOT_FOUND');
      expect(unknownUser.body.message).toBe(`Entrepreneur '${MISSING_ID}' not found`);
      expectError(await t.http().post(`/team/${MISSING_ID}/members/${cy}`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().delete(`/team/${MISSING_ID}/members/${cy}`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().post(`/team/${crew}/members/xyz`), 400, 'MR_INVALID_ID');
      expectError(await t.http().post(`/team/nope/members/${cy}`), 400, 'MR_INVALID_ID');
      const stored = await t.connection.model('Team').findById(crew).lean<{ members: unknown[] }>();
      expect(stored!.members.map(String)).toEqual([ada, bob]);
    });
  });

  describe('route options', () => {
    it('add: false and remove: false remove the relationship routes, keeping the others', async () => {
      const app = await createTestApp(engine, { resources: [Entrepreneur, Squad] });
      const squad = (await app.http().post('/squad').send({ members: [] }).expect(201)).body._id;
      expectNoRoute(await app.http().post(`/squad/${squad}/members/${MISSING_ID}`));
      expectNoRoute(await app.http().delete(`/squad/${squad}/members/${MISSING_ID}`));
      await app.http().get(`/squad/${squad}/members`).expect(200);
    });
  });
}
