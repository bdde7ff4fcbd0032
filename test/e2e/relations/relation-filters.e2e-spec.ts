import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Expose } from 'class-transformer';
import { Types, type Query } from 'mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { GeneratedResource } from '../../../src/index.js';
import { Company, Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function relationFiltersSpec(): void {
  /** Issue 25, items 2 to 5 for filters: conditions on referenced documents' fields, resolved in steps. */
  const engine = useEngine();
  let t: TestApp;

  /** The second hop: a patron's guild. */
  @GeneratedResource()
  @Schema()
  class Guild {
    @Prop({ required: true }) name!: string;
    @Prop({ select: false }) vault?: string;
  }

  /** A target with a hidden field and a field only the admin group sees. */
  @GeneratedResource()
  @Schema()
  class Patron {
    @Prop({ required: true }) niceName!: string;
    @Prop({ select: false }) secret?: string;
    @Expose({ groups: ['admin'] }) @Prop() salary?: number;
    @Prop({ type: Types.ObjectId, ref: 'Guild' }) guild?: Types.ObjectId;
  }

  /** The read preference each query of the patrons carried (an observation through a Mongoose hook, as in read-preference.e2e-spec.ts). */
  const patronReads: string[] = [];
  const PatronSchema = SchemaFactory.createForClass(Patron);
  PatronSchema.pre('find', function (this: Query<unknown, unknown>) {
    patronReads.push((this.getOptions().readPreference as { mode?: string } | undefined)?.mode ?? 'default');
  });

  /** `owner` filterable (the module's default), `boss` not; at most 2 referenced documents per condition; the POST search reads from the nearest member. */
  @GeneratedResource({ references: { boss: { filter: false } }, search: { maxRelationIds: 2 }, routes: { searchPost: { readPreference: 'nearest' } } })
  @Schema()
  class Venture {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Patron' }) owner?: Types.ObjectId;
    @Prop({ type: Types.ObjectId, ref: 'Patron' }) boss?: Types.ObjectId;
  }

  const ADMIN = { 'x-role': 'admin' };
  const commands: CommandStartedEvent[] = [];
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createTestApp(
      engine,
      {
        resources: [Entrepreneur, Company, Team, Guild, { resource: Patron, schema: PatronSchema }, Venture],
        references: { filter: true },
        serializationGroups: (request: { headers: Record<string, string | undefined> }) => (request.headers['x-role'] === 'admin' ? ['admin'] : []),
      },
      { monitorCommands: true },
    );
    t.connection.getClient().on('commandStarted', (event) => commands.push(event));
    const create = async (model: string, values: Record<string, unknown>) => String((await t.connection.model(model).create(values))._id);
    for (const [niceName, birth] of [
      ['Ada', '1985-03-01'],
      ['Alan', '1995-06-23'],
      ['Bob', '1980-01-01'],
      ['Cy', '2000-12-31'],
    ]) {
      ids[niceName] = await create('Entrepreneur', { niceName, birth });
    }
    for (const [niceName, owner] of [
      ['Acme', 'Ada'],
      ['Apex', 'Alan'],
      ['Bolt', 'Bob'],
      ['Core', 'Cy'],
      ['Free', undefined],
    ] as const) {
      await create('Company', { niceName, ...(owner && { owner: ids[owner] }) });
    }
    for (const [name, members] of [
      ['Crew', ['Ada', 'Bob']],
      ['Solo', ['Bob']],
      ['Kids', ['Alan', 'Cy']],
      ['Empty', []],
    ] as const) {
      await create('Team', { name, members: members.map((member) => ids[member]) });
    }
    ids.chess = await create('Guild', { name: 'Chess', vault: 'gold' });
    ids.go = await create('Guild', { name: 'Go', vault: 'silver' });
    for (const [niceName, guild, salary] of [
      ['Pia', 'chess', 100],
      ['Paz', 'go', 200],
      ['Pol', 'chess', 300],
    ] as const) {
      ids[niceName] = await create('Patron', { niceName, guild: ids[guild], salary, secret: `${niceName}-secret` });
    }
    for (const [name, owner] of [
      ['V1', 'Pia'],
      ['V2', 'Paz'],
      ['V3', 'Pol'],
    ])
      await create('Venture', { name, owner: ids[owner], boss: ids[owner] });
  });
  afterAll(() => t?.close());

  const names = (body: { result: Array<{ niceName?: string; name?: string }> }) => body.result.map((item) => item.niceName ?? item.name).sort();
  const search = (plural: string, query: unknown, headers: Record<string, string> = {}) => t.http().post(`/${plural}`).set(headers).send({ query });

  describe('conditions on a referenced field', () => {
    it("finds the companies whose owner's name starts with A (POST)", async () => {
      const response = await search('companies', { 'owner.niceName': { $regex: '^a', $options: 'i' } }).expect(200);
      expect(names(response.body)).toEqual(['Acme', 'Apex']);
      expect(response.body.status).toMatchObject({ match_count: 2, search_count: 2 });
    });

    it('finds them through the query string: owner.niceName[regex]=^a (GET)', async () => {
      const response = await t.http().get('/companies').query({ 'owner.niceName[regex]': '^a', 'owner.niceName[options]': 'i' }).expect(200);
      expect(names(response.body)).toEqual(['Acme', 'Apex']);
      expect(names((await t.http().get('/companies?owner.niceName=Bob').expect(200)).body)).toEqual(['Bolt']);
    });

    it('finds the companies whose owner was born before 1990 (the value cast by the target schema)', async () => {
      const response = await search('companies', { 'owner.birth': { $lt: '1990-01-01' } }).expect(200);
      expect(names(response.body)).toEqual(['Acme', 'Bolt']);
    });

    it("combines with the search's own conditions, $or and sort", async () => {
      const response = await t
        .http()
        .post('/companies')
        .send({ query: { $or: [{ 'owner.niceName': 'Cy' }, { niceName: 'Free' }] }, sort: '-niceName' })
        .expect(200);
      expect(response.body.result.map((company: { niceName: string }) => company.niceName)).toEqual(['Free', 'Core']);
      const both = await search('companies', { 'owner.birth': { $lt: '1990-01-01' }, 'owner.niceName': { $regex: '^B' } }).expect(200);
      expect(names(both.body)).toEqual(['Bolt']);
    });

    it('crosses two declared references: owner.guild.name', async () => {
      expect(names((await search('ventures', { 'owner.guild.name': 'Chess' }).expect(200)).body)).toEqual(['V1', 'V3']);
      expect(names((await search('ventures', { owner: { $some: { guild: { $some: { name: 'Go' } } } } }).expect(200)).body)).toEqual(['V2']);
    });

    it('answers the documents with their references unchanged (the condition is not an expand)', async () => {
      const response = await search('companies', { 'owner.niceName': 'Ada' }).expect(200);
      expect(response.body.result).toEqual([{ _id: expect.any(String), niceName: 'Acme', owner: ids.Ada }]);
    });
  });

  describe('arrays of references: some, none, every', () => {
    it("members.niceName means some member (MongoDB's array semantics)", async () => {
      expect(names((await search('teams', { 'members.niceName': 'Ada' }).expect(200)).body)).toEqual(['Crew']);
      expect(names((await t.http().get('/teams?members.niceName=Bob').expect(200)).body)).toEqual(['Crew', 'Solo']);
    });

    it.each([
      ['$some', ['Crew', 'Solo']],
      ['$none', ['Empty', 'Kids']],
      ['$every', ['Crew', 'Empty', 'Solo']],
    ])('%s member born before 1990', async (quantifier, expected) => {
      const response = await search('teams', { members: { [quantifier]: { birth: { $lt: '1990-01-01' } } } }).expect(200);
      expect(names(response.body)).toEqual(expected);
    });

    it('counts a dangling id as matching under $every, and as no match under $some', async () => {
      const gone = await t.connection.model('Entrepreneur').create({ niceName: 'Gone', birth: '1970-01-01' });
      const team = await t.connection.model('Team').create({ name: 'Ghosts', members: [ids.Ada, gone._id] });
      await t.connection.model('Entrepreneur').deleteOne({ _id: gone._id });
      try {
        expect(names((await search('teams', { members: { $every: { niceName: 'Ada' } } }).expect(200)).body)).toEqual(['Empty', 'Ghosts']);
        expect(names((await search('teams', { members: { $some: { niceName: 'Gone' } } }).expect(200)).body)).toEqual([]);
      } finally {
        await t.connection.model('Team').deleteOne({ _id: team._id });
      }
    });

    it('takes $some on a single reference: several conditions on one referenced document, in one query', async () => {
      const response = await search('companies', { owner: { $some: { niceName: { $regex: '^A' }, birth: { $gte: '1990-01-01' } } } }).expect(200);
      expect(names(response.body)).toEqual(['Apex']);
      expect(names((await search('companies', { owner: { $none: { niceName: { $regex: '^A' } } } }).expect(200)).body)).toEqual(['Bolt', 'Core', 'Free']);
    });

    it("works on the reverse routes, ANDed with the route's own condition on the same reference", async () => {
      const post = await t
        .http()
        .post(`/user/${ids.Bob}/teams/members`)
        .send({ query: { 'members.niceName': 'Ada' } })
        .expect(200);
      expect(names(post.body)).toEqual(['Crew']);
      const get = await t.http().get(`/user/${ids.Bob}/teams/members?members.birth[gt]=1990-01-01`).expect(200);
      expect(names(get.body)).toEqual([]);
    });

    it('refuses a condition on the referenced documents inside $elemMatch, naming $some instead', async () => {
      const response = await search('teams', { members: { $elemMatch: { niceName: 'Ada' } } });
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details).toEqual([{ path: 'query.members.$elemMatch.niceName', message: expect.stringContaining('{ "members": { "$some"') }]);
    });

    it('refuses members[some] in a query string, pointing to the POST search', async () => {
      const response = await t.http().get('/teams?members[some]=Ada');
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details[0].path).toBe('query.members.$some');
    });
  });

  describe("the target's rules: no oracle on hidden fields", () => {
    /** The answer to a filter on `field` with the field's name taken out: a hidden field must read as one that does not exist. */
    const refusalOf = async (query: unknown, field: string, headers: Record<string, string> = {}) => {
      const response = await search('ventures', query, headers);
      expectError(response, 400, 'MR_INVALID_QUERY');
      return JSON.stringify(response.body).split(field).join('<field>');
    };

    it.each([
      ['a select: false field', 'secret'],
      ["a field outside the request's groups", 'salary'],
      ['a hidden field two hops away', 'guild.vault'],
    ])('refuses %s as an unknown field, with the words of a field that does not exist', async (_label, field) => {
      const hidden = await refusalOf({ [`owner.${field}`]: { $regex: '^P' } }, field);
      const missing = await refusalOf({ 'owner.nothere': { $regex: '^P' } }, 'nothere');
      expect(hidden).toBe(missing);
      expect(JSON.parse(hidden.split('<field>').join(field)).details).toEqual([{ path: `query.owner.${field}`, message: `Unknown field 'owner.${field}'` }]);
      expect(await refusalOf({ owner: { $some: { [field]: 'x' } } }, field)).toBe(await refusalOf({ owner: { $some: { nothere: 'x' } } }, 'nothere'));
    });

    it('lets the admin group filter on the field its view shows', async () => {
      const response = await search('ventures', { 'owner.salary': { $gte: 200 } }, ADMIN).expect(200);
      expect(names(response.body)).toEqual(['V2', 'V3']);
    });

    it('refuses a reference not declared filter: true as an unknown field', async () => {
      const response = await search('ventures', { 'boss.niceName': 'Pia' });
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details).toEqual([{ path: 'query.boss.niceName', message: "Unknown field 'boss.niceName'" }]);
    });

    it('refuses to sort by a referenced field', async () => {
      for (const response of [
        await t.http().get('/companies?sort=owner.niceName'),
        await t
          .http()
          .post('/companies')
          .send({ sort: { 'owner.birth': -1 } }),
      ]) {
        expectError(response, 400, 'MR_INVALID_QUERY');
        expect(response.body.message).toMatch(/^Sorting by a referenced field \('owner\.(niceName|birth)'\) is not supported$/);
      }
    });
  });

  describe('bounds and values', () => {
    it('refuses a condition that matches more than maxRelationIds referenced documents, naming it, nothing cut', async () => {
      const response = await search('ventures', { name: { $ne: 'x' }, 'owner.niceName': { $regex: '^P' } });
      expectError(response, 400, 'MR_RELATION_FILTER_TOO_BROAD');
      expect(response.body.details).toEqual([{ path: 'query.owner.niceName', message: expect.stringContaining('more than 2 referenced documents') }]);
      const some = await search('ventures', { owner: { $some: { niceName: { $regex: '^P' } } } });
      expectError(some, 400, 'MR_RELATION_FILTER_TOO_BROAD');
      expect(some.body.details[0].path).toBe('query.owner.$some');
    });

    it("reads the referenced documents where the route reads (its readPreference), with the referenced resource's maxTimeMS", async () => {
      patronReads.length = 0;
      commands.length = 0;
      await search('ventures', { 'owner.niceName': 'Pia' }).expect(200);
      await t.http().get('/ventures?owner.niceName=Pia').expect(200);
      expect(patronReads).toEqual(['nearest', 'default']);
      const finds = commands.filter((event) => event.commandName === 'find' && event.command.find === t.connection.model('Patron').collection.collectionName);
      expect(finds.map((event) => event.command.maxTimeMS)).toEqual([5000, 5000]);
    });

    it('answers a condition that matches exactly maxRelationIds of them', async () => {
      expect(names((await search('ventures', { 'owner.guild.name': 'Chess' }).expect(200)).body)).toEqual(['V1', 'V3']);
    });

    it("answers a value the target schema cannot cast with MR_INVALID_VALUE at the client's path", async () => {
      const response = await search('companies', { 'owner.birth': { $lt: 'not a date' } });
      expectError(response, 400, 'MR_INVALID_VALUE');
      expect(response.body.details).toEqual([{ path: 'query.owner.birth.$lt', message: expect.stringContaining('"not a date" cannot be converted to date') }]);
      expect(response.body.message).toMatch(/^Invalid value for 'owner\.birth'/);
      const some = await search('teams', { members: { $every: { $or: [{ niceName: 'A' }, { birth: 'nope' }] } } });
      expectError(some, 400, 'MR_INVALID_VALUE');
      expect(some.body.details[0].path).toBe('query.members.$every.$or.1.birth');
      const get = await t.http().get('/companies?owner.birth[gte]=soon');
      expectError(get, 400, 'MR_INVALID_VALUE');
      expect(get.body.details[0].path).toBe('query.owner.birth.$gte');
    });
  });

  describe('batched: one id query per condition, whatever the page', () => {
    it.each([1, 5, 20])('sends one find to the referenced collection per condition (limit %i)', async (limit) => {
      const owners = t.connection.model('Entrepreneur').collection.collectionName;
      const finds = () => commands.filter((event) => event.commandName === 'find' && event.command.find === owners).length;
      commands.length = 0;
      const one = await t
        .http()
        .post('/companies')
        .send({ query: { 'owner.birth': { $lt: '2001-01-01' } }, limit })
        .expect(200);
      expect(one.body.result).toHaveLength(Math.min(limit, 4));
      expect(finds()).toBe(1);
      commands.length = 0;
      await t
        .http()
        .post('/teams')
        .send({ query: { $or: [{ 'members.niceName': 'Ada' }, { members: { $every: { birth: { $lt: '1990-01-01' } } } }] }, limit })
        .expect(200);
      expect(finds()).toBe(2);
      commands.length = 0;
      await t.http().get('/companies').query({ niceName: 'Acme', limit }).expect(200);
      expect(finds()).toBe(0);
    });
  });
}
