import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { DocumentBuilder } from '@nestjs/swagger';
import type { Response } from 'supertest';
import { GeneratedResource } from '../../../src/index.js';
import { ROUTE_ACTIONS } from '../../../src/metadata/route-actions.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { Agency, Agent } from '../../fixtures/serialization-models.js';
import { Company, Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { bodyType, clientTypes, compile, COMPILE_TIMEOUT, queryType, typed } from '../../support/typed-client.js';

/** The route actions whose rows take `expand`. */
type ExpandingAction = { [K in keyof typeof ROUTE_ACTIONS]: (typeof ROUTE_ACTIONS)[K] extends { expand: true } ? K : never }[keyof typeof ROUTE_ACTIONS];

function actionsTakingExpand(): string[] {
  return Object.entries(ROUTE_ACTIONS)
    .filter(([, row]) => (row as { expand?: true }).expand)
    .map(([name]) => name);
}

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function expandSpec(): void {
  /** Issue 25: `?expand=` and a search body's `expand`, under the target's rules, batched. */
  const engine = useEngine();
  let t: TestApp;
  /** The commands the app's connection sent, by collection (`find` only), since the last reset. */
  let finds: string[] = [];

  /** Two hops (Band → Roadie → Venue), a hidden field, and a reference that is not declared. */
  @GeneratedResource({ references: { home: { expand: true } }, search: { maxRelationIds: 5 } })
  @Schema()
  class Roadie {
    @Prop({ required: true }) name!: string;
    @Prop({ select: false }) pin?: string;
    @Prop({ type: Types.ObjectId, ref: 'Venue' }) home?: Types.ObjectId;
  }

  @GeneratedResource()
  @Schema()
  class Venue {
    @Prop({ required: true }) city!: string;
  }

  @GeneratedResource({
    references: {
      crew: { expand: true, expandReverse: 'bands' },
      manager: { expand: true, reverseExport: true, reverseExportPost: true },
      driver: { expand: false },
    },
    routes: { export: true, exportPost: true },
  })
  @Schema()
  class Band {
    @Prop({ required: true }) name!: string;
    @Prop({ type: Types.ObjectId, ref: 'Roadie' }) manager?: Types.ObjectId;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Roadie' }] }) crew?: Types.ObjectId[];
    @Prop({ type: Types.ObjectId, ref: 'Roadie' }) driver?: Types.ObjectId;
  }

  let ada: string;
  let bob: string;
  let acme: string;
  let orphan: string;
  let venue: string;
  let roadie: string;
  let band: string;

  beforeAll(async () => {
    t = await createTestApp(
      engine,
      {
        resources: [Entrepreneur, Company, Team, Agent, Agency, Roadie, Venue, Band],
        references: { expand: true },
        serializationGroups: (request: { headers: Record<string, string | undefined> }) => (request.headers['x-role'] === 'admin' ? ['admin'] : []),
      },
      { monitorCommands: true },
    );
    t.connection.getClient().on('commandStarted', (event) => {
      if (event.commandName === 'find') finds.push(String(event.command.find));
    });
    const post = async (path: string, body: object) => (await t.http().post(path).send(body).expect(201)).body._id as string;
    ada = await post('/user', { niceName: 'Ada', birth: '1985-02-01' });
    bob = await post('/user', { niceName: 'Bob' });
    acme = await post('/company', { niceName: 'Acme', owner: ada, employees: 10 });
    await post('/company', { niceName: 'Bobco', owner: bob, employees: 20 });
    await post('/company', { niceName: 'Nobody', employees: 30 });
    const ghost = await post('/user', { niceName: 'Ghost' });
    orphan = await post('/company', { niceName: 'Orphan', owner: ghost, employees: 40 });
    await post('/team', { name: 'Crew', members: [bob, ghost, ada] });
    await t.http().delete(`/user/${ghost}`).expect(200);
    venue = await post('/venue', { city: 'Lisbon' });
    roadie = (await t.connection.model('Roadie').create({ name: 'Ray', pin: '1234', home: venue }))._id.toString();
    band = await post('/band', { name: 'Loud', manager: roadie, crew: [roadie], driver: roadie });
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    finds = [];
  });

  describe('in place of the identifiers', () => {
    it('answers the referenced document in place of its identifier (GET one)', async () => {
      const { body } = await t.http().get(`/company/${acme}?expand=owner`).expect(200);
      expect(body).toEqual({ _id: acme, niceName: 'Acme', employees: 10, owner: { _id: ada, niceName: 'Ada', birth: '1985-02-01T00:00:00.000Z' } });
      expect((await t.http().get(`/company/${acme}`).expect(200)).body.owner).toBe(ada);
    });

    it('expands every document of a search page, GET and POST alike', async () => {
      const get = (await t.http().get('/companies?expand=owner&sort=niceName').expect(200)).body;
      const post = (
        await t
          .http()
          .post('/companies')
          .send({ expand: ['owner'], sort: { niceName: 1 } })
          .expect(200)
      ).body;
      expect(post).toEqual(get);
      expect(
        get.result.map((company: { owner?: { niceName?: string } | null }) => (company.owner === undefined ? 'none' : (company.owner?.niceName ?? null))),
      ).toEqual(['Ada', 'Bob', 'none', null]);
    });

    it('answers null for a reference whose document is gone, and leaves such identifiers out of an array, in the array order', async () => {
      expect((await t.http().get(`/company/${orphan}?expand=owner`).expect(200)).body.owner).toBeNull();
      const { body } = await t.http().get('/teams?expand=members').expect(200);
      expect(body.result[0].members.map((member: { niceName: string }) => member.niceName)).toEqual(['Bob', 'Ada']);
    });

    it('expands on the forward, list and reverse reference routes', async () => {
      expect((await t.http().get(`/band/${band}/manager?expand=home`).expect(200)).body.home).toEqual({ _id: venue, city: 'Lisbon' });
      const list = (await t.http().get(`/band/${band}/crew?expand=home`).expect(200)).body;
      expect(list.result[0].home).toEqual({ _id: venue, city: 'Lisbon' });
      const reverse = (await t.http().get(`/user/${ada}/companies/owner?expand=owner`).expect(200)).body;
      expect(reverse.result.map((company: { owner: { niceName: string } }) => company.owner.niceName)).toEqual(['Ada']);
      const reversePost = (await t.http().post(`/user/${ada}/companies/owner`).send({ expand: 'owner' }).expect(200)).body;
      expect(reversePost).toEqual(reverse);
    });

    it('expands two references in a row (manager.home), and keeps the field when select leaves it out', async () => {
      const { body } = await t.http().get(`/bands?expand=manager.home,crew&select=name`).expect(200);
      expect(body.result).toEqual([
        {
          _id: band,
          name: 'Loud',
          manager: { _id: roadie, name: 'Ray', home: { _id: venue, city: 'Lisbon' } },
          crew: [{ _id: roadie, name: 'Ray', home: venue }],
        },
      ]);
    });
  });

  describe('a reverse path (expandReverse)', () => {
    /** Three more bands with Ray in their crew, and Sam in none. */
    let sam: string;
    beforeAll(async () => {
      for (const name of ['Alpha', 'Omega', 'Zed'])
        await t
          .http()
          .post('/band')
          .send({ name, crew: [roadie] })
          .expect(201);
      sam = (await t.connection.model('Roadie').create({ name: 'Sam' }))._id.toString();
    });
    afterAll(() => t.connection.model('Band').deleteMany({ name: { $in: ['Alpha', 'Omega', 'Zed'] } }));

    it('lists, in place, the documents that reference each one, a page each, in one query', async () => {
      const { body } = await t.http().get(`/roadie/${roadie}?expand=bands`).expect(200);
      expect(body.bands.map((band: { name: string }) => band.name)).toEqual(['Loud', 'Alpha', 'Omega', 'Zed']);
      expect(body.bands[0]).toEqual((await t.http().get(`/band/${band}`).expect(200)).body);
      finds = [];
      const page = (
        await t
          .http()
          .post('/roadies')
          .send({ query: { _id: { $in: [roadie, sam] } }, sort: { name: 1 }, expand: [{ path: 'bands', limit: 2, sort: '-name' }] })
          .expect(200)
      ).body;
      expect(page.result.map((one: { name: string; bands: Array<{ name: string }> }) => [one.name, one.bands.map((item) => item.name)])).toEqual([
        ['Ray', ['Zed', 'Omega']],
        ['Sam', []],
      ]);
      expect(finds.filter((collection) => collection === 'bands')).toHaveLength(1);
    });

    it('expands further from the documents it lists (bands.manager)', async () => {
      const { body } = await t.http().get(`/roadie/${roadie}?expand=bands.manager`).expect(200);
      expect(body.bands[0].manager).toMatchObject({ _id: roadie, name: 'Ray' });
    });

    it('refuses, naming the path and the bound, an answer that would read more documents than maxRelationIds; never cuts it', async () => {
      // Six bands for Ray, none for Sam: Sam's first twenty could be anywhere after the first five read.
      for (const name of ['Echo', 'Foxtrot'])
        await t
          .http()
          .post('/band')
          .send({ name, crew: [roadie] })
          .expect(201);
      const response = await t
        .http()
        .post('/roadies')
        .send({ query: { _id: { $in: [roadie, sam] } }, expand: ['bands'] });
      expectError(response, 400, 'MR_EXPAND_TOO_BROAD');
      expect(response.body.details).toEqual([{ path: 'expand.bands', message: 'reads more than 5 documents' }]);
      // A page each that the documents read fill: answered.
      const { body } = await t
        .http()
        .post('/roadies')
        .send({ query: { _id: roadie }, expand: [{ path: 'bands', limit: 2 }] })
        .expect(200);
      expect(body.result[0].bands).toHaveLength(2);
      await t.connection.model('Band').deleteMany({ name: { $in: ['Echo', 'Foxtrot'] } });
    });

    it('takes limit and sort on a reverse path only, checked as a search of its documents', async () => {
      const refused = async (expand: unknown, path: string) => {
        const response = await t.http().post('/roadies').send({ expand });
        expectError(response, 400, 'MR_INVALID_QUERY');
        expect(response.body.details[0].path).toBe(path);
      };
      await refused([{ path: 'home', limit: 2 }], 'expand.home');
      await refused([{ path: 'bands', limit: 0 }], 'expand.bands.limit');
      await refused([{ path: 'bands', sort: { nope: 1 } }], 'expand.bands.sort.nope');
      await refused([{ path: 'bands', skip: 1 }], 'expand');
    });
  });

  describe("under the target's rules", () => {
    it("never answers the target's hidden fields", async () => {
      const { body } = await t.http().get(`/band/${band}?expand=manager`).expect(200);
      expect(body.manager).toEqual({ _id: roadie, name: 'Ray', home: venue });
      expect(JSON.stringify(body)).not.toContain('1234');
    });

    /** Every route action that takes expand (a new one fails to compile until it is here), each answering an expanded Roadie. */
    const EXPANDING: Record<ExpandingAction, () => Promise<Response>> = {
      findOne: () => t.http().get(`/band/${band}?expand=manager`),
      search: () => t.http().get('/bands?expand=manager'),
      searchPost: () =>
        t
          .http()
          .post('/bands')
          .send({ expand: ['manager'] }),
      export: () => t.http().get('/bands/export?format=json&expand=manager'),
      exportPost: () =>
        t
          .http()
          .post('/bands/export?format=json')
          .send({ expand: ['manager'] }),
      find: () => t.http().get(`/band/${band}/manager?expand=bands.manager`),
      list: () => t.http().get(`/band/${band}/crew?expand=bands.manager`),
      reverse: () => t.http().get(`/roadie/${roadie}/bands/manager?expand=manager`),
      reversePost: () => t.http().post(`/roadie/${roadie}/bands/manager`).send({ expand: 'manager' }),
      reverseExport: () => t.http().get(`/roadie/${roadie}/bands/manager/export?format=json&expand=manager`),
      reverseExportPost: () => t.http().post(`/roadie/${roadie}/bands/manager/export?format=json`).send({ expand: 'manager' }),
    };

    it.each(Object.keys(EXPANDING) as ExpandingAction[])("never answers the target's hidden fields through %s", async (action) => {
      expect(actionsTakingExpand()).toEqual(Object.keys(EXPANDING));
      const response = await EXPANDING[action]();
      expect(response.status).toBe(200);
      // The manager was expanded (a Roadie object), and holds no pin.
      expect(JSON.stringify(response.body)).toMatch(/"manager":\{"_id":"[0-9a-f]{24}","name":"Ray"/);
      expect(JSON.stringify(response.body)).not.toContain('1234');
    });

    it("applies the target's serialization view of the request's groups", async () => {
      const agency = await t.connection.model('Agency').create({ name: 'Circus', budget: 9000, vault: 'vault-code' });
      const agent = await t.connection.model('Agent').create({
        codename: 'falcon',
        secret: 's3',
        realName: 'Jane',
        salary: 5,
        callsign: 'hawk',
        hideout: { city: 'Lisbon', door: 'blue' },
        agency: agency._id,
      });
      await t.connection.model('Agency').updateOne({ _id: agency._id }, { $set: { members: [agent._id] } });
      const plain = (await t.http().get(`/agent/${agent._id}?expand=agency`).expect(200)).body;
      expect(plain.agency).toEqual({ _id: String(agency._id), name: 'Circus', members: [String(agent._id)] });
      const admin = (await t.http().get(`/agent/${agent._id}?expand=agency`).set('x-role', 'admin').expect(200)).body;
      expect(admin.agency).toEqual({ _id: String(agency._id), name: 'Circus', budget: 9000, members: [String(agent._id)] });
      // As the agent's own route answers it to the same groups.
      for (const role of ['admin', 'none']) {
        const members = (await t.http().get(`/agency/${agency._id}?expand=members`).set('x-role', role).expect(200)).body.members;
        expect(members).toEqual([(await t.http().get(`/agent/${agent._id}`).set('x-role', role).expect(200)).body]);
        expect(JSON.stringify(members)).not.toMatch(role === 'admin' ? /s3|blue/ : /s3|blue|Jane|salary/);
      }
    });
  });

  describe('declared and bounded', () => {
    it('refuses a reference that is not declared expandable, a field that is not a reference, and an unknown one', async () => {
      for (const path of ['driver', 'name', 'nope', 'manager.pin', '__proto__']) {
        const response = await t.http().get(`/band/${band}?expand=${path}`);
        expectError(response, 400, 'MR_INVALID_QUERY');
        expect(response.body.details[0].path).toBe(`expand.${path}`);
      }
    });

    it('refuses a path deeper than maxExpandDepth, naming it', async () => {
      const response = await t.http().get(`/agent/${new Types.ObjectId()}?expand=agency.members.agency`);
      expectError(response, 400, 'MR_INVALID_QUERY');
      expect(response.body.details[0].path).toBe('expand.agency.members.agency');
    });

    it('refuses expand on a route that does not read documents, and a malformed expand', async () => {
      expectError(await t.http().post('/company?expand=owner').send({ niceName: 'X' }), 400, 'MR_INVALID_QUERY');
      expectError(
        await t
          .http()
          .post('/companies')
          .send({ expand: { owner: 1 } }),
        400,
        'MR_INVALID_QUERY',
      );
      expectError(await t.http().post('/companies').send({ expand: [] }), 400, 'MR_INVALID_QUERY');
      expect(await t.connection.model('Company').countDocuments({ niceName: 'X' })).toBe(0);
    });
  });

  describe('batched', () => {
    it('reads each expanded path with one query for the whole page, whatever its size', async () => {
      await t.http().get('/companies?expand=owner').expect(200);
      expect(finds.filter((collection) => collection === 'entrepreneurs')).toHaveLength(1);
      finds = [];
      await t.http().get('/bands?expand=manager.home,crew.home').expect(200);
      expect(finds.filter((collection) => collection === 'roadies')).toHaveLength(2);
      expect(finds.filter((collection) => collection === 'venues')).toHaveLength(2);
    });
  });

  describe('in the OpenAPI document', () => {
    it('documents expand with the paths a route may name, and expandable references as an identifier or the document', () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().build()) as any;
      const paths = ['manager', 'manager.home', 'manager.bands', 'crew', 'crew.home', 'crew.bands'];
      const parameter = (path: string, method: string) =>
        document.paths[path][method].parameters.find((candidate: { name: string }) => candidate.name === 'expand');
      for (const [path, method] of [
        ['/band/{band_id}', 'get'],
        ['/bands', 'get'],
      ]) {
        expect(parameter(path, method)).toMatchObject({
          in: 'query',
          required: false,
          style: 'form',
          explode: false,
          schema: { type: 'array', items: { enum: paths } },
        });
      }
      expect(parameter('/band/{band_id}/manager', 'get').schema.items.enum).toEqual(['home', 'bands', 'bands.manager', 'bands.crew']);
      expect(parameter('/band/{band_id}', 'put')).toBeUndefined();
      const body = document.paths['/bands'].post.requestBody.content['application/json'].schema.$ref.split('/').pop();
      expect(document.components.schemas[body].properties.expand.oneOf[0].items.enum).toEqual(paths);
      expect(document.components.schemas.Band.properties.manager.oneOf[1]).toEqual({ $ref: '#/components/schemas/Roadie' });
      expect(document.components.schemas.Band.properties.crew.items.oneOf[1]).toEqual({ $ref: '#/components/schemas/Roadie' });
      expect(document.components.schemas.Band.properties.driver).not.toHaveProperty('oneOf');
      expect(document.components.schemas.Roadie.properties.bands).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Band' } });
      expect(parameter('/roadie/{roadie_id}', 'get').schema.items.enum).toEqual(['home', 'bands', 'bands.manager', 'bands.crew']);
    });

    it(
      'gives a generated client (openapi-typescript) types that take expand and read an expanded reference, and refuse a path not declared',
      async () => {
        const types = await clientTypes(createModelRoutesDocument(t.app, new DocumentBuilder().build()) as never);
        const client = [
          "import type { components, paths } from './api';",
          typed('one', queryType('/band/{band_id}'), { expand: ['manager', 'manager.home'] }),
          typed('page', queryType('/bands'), { expand: ['crew.home'], limit: 5 }),
          typed('search', bodyType('/bands', 'post'), { expand: ['manager'], query: { name: 'Loud' } }),
          "declare const band: components['schemas']['Band'];",
          'const manager = band.manager;',
          "export const name: string | undefined = typeof manager === 'object' && manager !== null ? manager.name : undefined;",
          "export const crew: string[] = (band.crew ?? []).map((member) => (typeof member === 'string' ? member : member.name));",
        ].join('\n');
        expect(compile({ 'api.ts': types, 'client.ts': client })).toEqual([]);
        const wrong = ["import type { paths } from './api';", typed('driver', queryType('/bands'), { expand: ['driver'] })].join('\n');
        expect(compile({ 'api.ts': types, 'wrong.ts': wrong }).join('\n')).toMatch(/"driver"/);
      },
      COMPILE_TIMEOUT,
    );
  });

  describe('entity tags', () => {
    it('changes the ETag of an answer when an expanded document changes, and answers 304 while none does', async () => {
      const first = await t.http().get(`/company/${acme}?expand=owner`).expect(200);
      const plain = await t.http().get(`/company/${acme}`).expect(200);
      expect(first.headers.etag).toMatch(/^W\//);
      expect(first.headers.etag).not.toBe(plain.headers.etag);
      await t.http().get(`/company/${acme}?expand=owner`).set('If-None-Match', first.headers.etag).expect(304);
      await t.http().patch(`/user/${ada}`).send({ niceName: 'Ada L.' }).expect(200);
      const second = await t.http().get(`/company/${acme}?expand=owner`).set('If-None-Match', first.headers.etag).expect(200);
      expect(second.body.owner.niceName).toBe('Ada L.');
      expect(second.headers.etag).not.toBe(first.headers.etag);
      await t.http().patch(`/user/${ada}`).send({ niceName: 'Ada' }).expect(200);
    });
  });
}
