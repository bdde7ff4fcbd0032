import { Controller, Get, Injectable, UseInterceptors } from '@nestjs/common';
import fc from 'fast-check';
import { Expose } from 'class-transformer';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import type { Response } from 'supertest';
import {
  FileProp,
  FileRef,
  GeneratedController,
  GeneratedResource,
  InjectModelRepository,
  RowScopeInterceptor,
  ModelRoutesExplorer,
  ModelRoutesModule,
  getModelRepositoryToken,
  runWithRequest,
  type ModelRepository,
  type RowScope,
  type ScopeContext,
} from '../../../src/index.js';
import { ROUTE_ACTIONS, type RouteActionName } from '../../../src/metadata/route-actions.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { makeImage } from '../../support/images.js';

/**
 * Issue 28, item 3: row scopes, and the leak matrix of the route table. Two tenants, `north` and
 * `south`, of the spec's Company and Entrepreneur; the request's tenant is its `x-tenant` header
 * (`*`: an administrator, every document; none: no document). Every cell is north trying to read,
 * infer, write, reference or delete south's documents through one action of the route table, and
 * the matrix fails when an action of the library has no cell.
 */
export function scopesSpec(): void {
  const engine = useEngine();

  /** What the application knows of its tenants: a service the scope class takes by injection. */
  @Injectable()
  class Tenancy {
    filterOf(request: { headers: Record<string, unknown> }): Record<string, unknown> | false | undefined {
      const tenant = request.headers['x-tenant'];
      if (tenant === '*') return undefined;
      return typeof tenant === 'string' && tenant ? { tenant } : false;
    }
  }

  @Injectable()
  class TenantScope implements RowScope {
    constructor(private readonly tenancy: Tenancy) {}
    read({ request }: ScopeContext) {
      return this.tenancy.filterOf(request);
    }
  }

  /** "Published or mine": every tenant reads the published notes, each writes only its own. */
  @Injectable()
  class NoteScope implements RowScope {
    constructor(private readonly tenancy: Tenancy) {}
    read({ request }: ScopeContext) {
      const own = this.tenancy.filterOf(request);
      return own ? { $or: [{ published: true }, own] } : own;
    }
    write({ request }: ScopeContext) {
      return this.tenancy.filterOf(request);
    }
  }

  @Schema()
  class Branch {
    @Prop({ required: true }) city!: string;
  }

  @GeneratedResource({
    path: 'entrepreneur',
    plural: 'entrepreneurs',
    readonly: ['tenant'],
    // The shorthand: one function for reads and writes.
    scope: ({ request }) =>
      request.headers['x-tenant'] === '*' ? undefined : typeof request.headers['x-tenant'] === 'string' ? { tenant: request.headers['x-tenant'] } : false,
  })
  @Schema()
  class Entrepreneur {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) niceName!: string;
    // Elements of an array, on a resource whose class has no views: one element is
    // answered without them, so Company (a group-only field) has no findElement route.
    @Prop({ type: [SchemaFactory.createForClass(Branch)] }) branches?: Branch[];
  }

  @GeneratedResource({
    path: 'company',
    plural: 'companies',
    readonly: ['tenant'],
    scope: TenantScope,
    softDelete: true,
    history: true,
    routes: { export: true, exportPost: true, import: true, updateMany: true, deleteMany: true },
    references: {
      owner: { expand: true, filter: true, reverseExport: true, reverseExportPost: true },
      partners: { expand: true },
    },
  })
  @Schema()
  class Company {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) niceName!: string;
    @Prop() employees?: number;
    @Prop({ type: Types.ObjectId, ref: 'Entrepreneur' }) owner?: Types.ObjectId;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Entrepreneur' }] }) partners?: Types.ObjectId[];
    @FileProp({ maxSize: '1MB', accept: ['image/png'] }) logo?: FileRef;
    @FileProp({ maxFiles: 3, accept: ['image/png'] }) photos?: FileRef[];
    /** A field rule beside the row scope: only the `fin` group sees it; no request of the matrix has it. */
    @Expose({ groups: ['fin'] }) @Prop() ledger?: string;
  }

  @GeneratedResource({ path: 'note', plural: 'notes', readonly: ['tenant'], scope: NoteScope, search: { estimateLimit: 1 } })
  @Schema()
  class Note {
    @Prop({ required: true }) tenant!: string;
    @Prop({ required: true }) text!: string;
    @Prop({ default: false }) published?: boolean;
  }

  /** The app's own route on Company's generated controller: its repository calls are scoped with no code of its own. */
  @Controller()
  class CompanyController extends GeneratedController(Company) {
    @Get('names')
    async names() {
      return (await this.repository.search({ filter: {}, limit: 50, skip: 0 })).result.map((doc) => doc.niceName).sort();
    }
  }

  /** A controller of the app, scoped by the library's interceptor. */
  @UseInterceptors(RowScopeInterceptor)
  @Controller('dashboard')
  class DashboardController {
    constructor(@InjectModelRepository(Entrepreneur) private readonly entrepreneurs: ModelRepository<Entrepreneur>) {}
    @Get()
    async names() {
      return (await this.entrepreneurs.search({ filter: {}, limit: 50, skip: 0 })).result.map((doc) => doc.niceName).sort();
    }
  }

  let t: TestApp;
  let png: Buffer;
  /** Documents by name: `ada` (north) and `grace` (south) entrepreneurs; north's and south's companies. */
  const ids: Record<string, string> = {};
  let element: string;
  let southLogo: string;
  let southPhoto: string;

  const as = (tenant: string | undefined) => {
    const http = t.http();
    // Every answer of the matrix is also checked for the field rule: no trace of `ledger`, which its requests' groups do not see.
    const set = <R extends { set(name: string, value: string): R; expect(check: (response: Response) => void): R }>(request: R) =>
      (tenant === undefined ? request : request.set('x-tenant', tenant)).expect((response) => {
        const text = response.text ?? (Buffer.isBuffer(response.body) ? response.body.toString('latin1') : JSON.stringify(response.body ?? ''));
        expect({ ledger: text.includes('ledger') || text.includes('LEDGER-') }).toEqual({ ledger: false });
      });
    return {
      get: (path: string) => set(http.get(path)),
      post: (path: string) => set(http.post(path)),
      put: (path: string) => set(http.put(path)),
      patch: (path: string) => set(http.patch(path)),
      delete: (path: string) => set(http.delete(path)),
    };
  };
  const north = () => as('north');
  /** The answer to a document that does not exist, with `id` put in place of its identifier: what an out-of-scope one must equal. */
  const absentAnswer = async (send: (id: string) => PromiseLike<Response>, id: string) => {
    const missing = new Types.ObjectId().toHexString();
    const body = JSON.stringify((await send(missing)).body)
      .split(missing)
      .join(id);
    return JSON.parse(body) as unknown;
  };
  /** Asserts that `send` to an out-of-scope id answers exactly what it answers for an id that names nothing, and changes nothing. */
  const indistinguishable = async (send: (id: string) => PromiseLike<Response>, id: string, code = 'MR_NOT_FOUND') => {
    const expected = await absentAnswer(send, id);
    const response = await expectRefusedUnchanged(t.connection, () => send(id), { status: 404, code });
    expect(response.body).toEqual(expected);
  };

  beforeAll(async () => {
    t = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({
        resources: [Entrepreneur, Company, Note],
        providers: [Tenancy],
        controllers: [CompanyController],
        serializationGroups: (request: { headers: Record<string, unknown> }) => (request.headers['x-role'] === 'fin' ? ['fin'] : []),
      }),
      controllers: [DashboardController],
    });
    png = await makeImage('png', { width: 4, height: 4 });
    const entrepreneurs = t.connection.model('Entrepreneur');
    const companies = t.connection.model('Company');
    ids.ada = String((await entrepreneurs.create({ tenant: 'north', niceName: 'Ada' }))._id);
    ids.grace = String((await entrepreneurs.create({ tenant: 'south', niceName: 'Grace', branches: [{ city: 'Hobart' }] }))._id);
    ids.northCo = String(
      (await companies.create({ tenant: 'north', niceName: 'Boreal', ledger: 'LEDGER-north', employees: 10, owner: ids.ada, partners: [ids.ada] }))._id,
    );
    // A reference across tenants, as data written before the scope (or by an administrator) may hold.
    ids.crossCo = String(
      (await companies.create({ tenant: 'north', niceName: 'Bridge', employees: 20, owner: ids.grace, partners: [ids.ada, ids.grace] }))._id,
    );
    ids.southCo = String(
      (await companies.create({ tenant: 'south', niceName: 'Austral', ledger: 'LEDGER-south', employees: 30, owner: ids.grace, partners: [ids.grace] }))._id,
    );
    // South's trash: a company south deleted (soft delete).
    ids.southGone = String((await companies.create({ tenant: 'south', niceName: 'Gone', ledger: 'LEDGER-gone', employees: 40 }))._id);
    element = String(((await entrepreneurs.findById(ids.grace).lean()) as unknown as { branches: Array<{ _id: unknown }> }).branches[0]._id);
    // South's files, through the routes, as south.
    southLogo = String((await as('south').put(`/company/${ids.southCo}/logo`).set('Content-Type', 'image/png').send(png).expect(200)).body.logo._id);
    southPhoto = String((await as('south').post(`/company/${ids.southCo}/photos`).set('Content-Type', 'image/png').send(png).expect(201)).body.photos[0]._id);
    const notes = t.connection.model('Note');
    ids.southPublished = String((await notes.create({ tenant: 'south', text: 'open', published: true }))._id);
    ids.southPrivate = String((await notes.create({ tenant: 'south', text: 'closed' }))._id);
    await as('south').delete(`/company/${ids.southGone}`).expect(200);
  });
  afterAll(() => t?.close());

  const names = (response: Response) => (response.body.result as Array<{ niceName: string }>).map((doc) => doc.niceName).sort();

  /** One cell per action of the route table: north reaching for south's documents through it. */
  const cells: Record<RouteActionName, () => Promise<void>> = {
    findOne: async () => {
      await indistinguishable((id) => north().get(`/company/${id}`), ids.southCo);
      expect((await north().get(`/company/${ids.northCo}`).expect(200)).body).toMatchObject({ niceName: 'Boreal', tenant: 'north' });
    },
    create: async () => {
      const created = await north().post('/company').send({ niceName: 'Fresh', owner: ids.ada }).expect(201);
      expect(created.body).toMatchObject({ niceName: 'Fresh', tenant: 'north' });
      await north().delete(`/company/${created.body._id}`).expect(200);
      await north().delete(`/company/${created.body._id}/purge`).expect(200);
      // The scope's field is the server's: a body naming it is refused as any readonly field is.
      await expectRefusedUnchanged(t.connection, () => north().post('/company').send({ niceName: 'Sneaky', tenant: 'south' }), {
        status: 400,
        code: 'MR_INVALID_BODY',
      });
      // A reference to another tenant's document is a reference to nothing: the same words.
      const expected = await absentAnswer((id) => north().post('/company').send({ niceName: 'Ref', owner: id }), ids.grace);
      const refused = await expectRefusedUnchanged(t.connection, () => north().post('/company').send({ niceName: 'Ref', owner: ids.grace }), {
        status: 400,
        code: 'MR_REFERENCE_NOT_FOUND',
      });
      expect(refused.body).toEqual(expected);
      // A request whose scope reaches no document creates none.
      await expectRefusedUnchanged(t.connection, () => as(undefined).post('/company').send({ niceName: 'Nobody' }), { status: 403, code: 'MR_OUT_OF_SCOPE' });
    },
    update: async () => indistinguishable((id) => north().put(`/company/${id}`).send({ niceName: 'Taken' }), ids.southCo),
    patch: async () => {
      await indistinguishable((id) => north().patch(`/company/${id}`).send({ niceName: 'Taken' }), ids.southCo);
      // Nor through a reference into the other tenant.
      await expectRefusedUnchanged(t.connection, () => north().patch(`/company/${ids.northCo}`).send({ owner: ids.grace }), {
        status: 400,
        code: 'MR_REFERENCE_NOT_FOUND',
      });
    },
    delete: async () => indistinguishable((id) => north().delete(`/company/${id}`), ids.southCo),
    search: async () => {
      const all = await north().get('/companies').set('Prefer', 'count=exact').expect(200);
      expect(names(all)).toEqual(['Boreal', 'Bridge']);
      // The envelope's count is the documents the request sees, not the collection's.
      expect(all.body.status).toMatchObject({ count: 2, match_count: 2 });
      for (const policy of ['estimated', 'none'])
        expect((await north().get('/companies').set('Prefer', `count=${policy}`).expect(200)).body.status.count).toBe(2);
      // No condition, regex, sort nor a condition on the scope's own field reaches south.
      for (const query of ['niceName=Austral', 'niceName[regex]=^A', 'tenant=south', 'employees[gte]=25', 'sort=-employees&limit=1']) {
        const response = await north().get(`/companies?${query}`).expect(200);
        expect({ query, names: names(response) }).toEqual({ query, names: query.startsWith('sort') ? ['Bridge'] : [] });
      }
      // No tenant: no document; an administrator: every one.
      expect(names(await as(undefined).get('/companies').expect(200))).toEqual([]);
      expect(names(await as('*').get('/companies').expect(200))).toEqual(['Austral', 'Boreal', 'Bridge']);
      // A cursor of north's pages is bound to its scope: south cannot continue it.
      const first = await north().get('/companies?sort=niceName&limit=1').expect(200);
      await as('south')
        .get(`/companies?sort=niceName&limit=1&after=${encodeURIComponent(first.body.status.next)}`)
        .expect(400);
    },
    searchPost: async () => {
      expect(
        names(
          await north()
            .post('/companies')
            .send({ query: { $or: [{ niceName: 'Austral' }, { tenant: 'south' }] } })
            .expect(200),
        ),
      ).toEqual([]);
      expect(names(await north().post('/companies').send({ query: {} }).expect(200))).toEqual(['Boreal', 'Bridge']);
    },
    export: async () => {
      const csv = (await north().get('/companies/export?format=csv').expect(200)).text;
      expect(csv).toContain('Boreal');
      expect(csv).not.toContain('Austral');
      expect((await north().get('/companies/export?format=csv&niceName=Austral').expect(200)).text).not.toContain('Austral');
    },
    exportPost: async () => {
      expect(
        (
          await north()
            .post('/companies/export?format=ndjson')
            .send({ query: { tenant: 'south' } })
            .expect(200)
        ).text,
      ).not.toContain('Austral');
    },
    import: async () => {
      // An upsert row naming south's document is refused as a row naming nothing; a new row is north's.
      const rows = [{ _id: ids.southCo, niceName: 'Taken' }, { niceName: 'Imported' }];
      const response = await north()
        .post('/companies/import?mode=upsert')
        .set('Content-Type', 'application/x-ndjson')
        .send(rows.map((row) => JSON.stringify(row)).join('\n'))
        .expect(200);
      expect(response.body).toMatchObject({ created: 1, updated: 0, refused: 1, errors: [{ row: 1, code: 'MR_NOT_FOUND' }] });
      const imported = await t.connection.model('Company').findOne({ niceName: 'Imported' }).lean();
      expect(imported).toMatchObject({ tenant: 'north' });
      expect(await t.connection.model('Company').findById(ids.southCo).lean()).toMatchObject({ niceName: 'Austral' });
      await t.connection.model('Company').deleteOne({ niceName: 'Imported' });
      // A row referencing south's entrepreneur is refused in the words of a reference to nothing.
      const referencing = await north()
        .post('/companies/import')
        .set('Content-Type', 'application/x-ndjson')
        .send(JSON.stringify({ niceName: 'R', owner: ids.grace }))
        .expect(200);
      expect(referencing.body).toMatchObject({ created: 0, refused: 1, errors: [{ row: 1, code: 'MR_REFERENCE_NOT_FOUND' }] });
    },
    updateMany: async () => {
      for (const query of ['niceName=Austral', 'tenant=south']) {
        const response = await north().patch(`/companies?${query}`).send({ employees: 1 }).expect(200);
        expect(response.body).toMatchObject({ matched: 0, updated: 0 });
      }
      expect(await t.connection.model('Company').findById(ids.southCo).lean()).toMatchObject({ employees: 30 });
      // A bulk change matches only the scope's documents: an administrator's dry run sees all three.
      expect((await as('*').patch('/companies?employees[gte]=1&dryRun=true').send({ employees: 1 }).expect(200)).body.matched).toBe(3);
      expect((await north().patch('/companies?employees[gte]=1&dryRun=true').send({ employees: 1 }).expect(200)).body.matched).toBe(2);
    },
    deleteMany: async () => {
      const response = await north().delete('/companies?niceName=Austral').expect(200);
      expect(response.body).toMatchObject({ matched: 0, deleted: 0 });
      expect(await t.connection.model('Company').findById(ids.southCo).lean()).not.toBeNull();
    },
    find: async () => {
      await indistinguishable((id) => north().get(`/company/${id}/owner`), ids.southCo);
      // North's company referencing south's entrepreneur: the target reads as missing, as a deleted one does.
      const broken = await north().get(`/company/${ids.crossCo}/owner`).expect(404);
      expect(broken.body.code).toBe('MR_REFERENCE_BROKEN');
      expect(JSON.stringify(broken.body)).not.toContain('Grace');
    },
    list: async () => {
      await indistinguishable((id) => north().get(`/company/${id}/partners`), ids.southCo);
      const response = await north().get(`/company/${ids.crossCo}/partners`).expect(200);
      expect(names(response)).toEqual(['Ada']);
      expect(response.body.status.missing).toEqual([ids.grace]);
    },
    reverse: async () => {
      // North's Bridge references Grace, yet Grace is no parent north can name: a 404, as an id of nothing.
      await indistinguishable((id) => north().get(`/entrepreneur/${id}/companies/owner`), ids.grace);
      expect(names(await north().get(`/entrepreneur/${ids.ada}/companies/owner`).expect(200))).toEqual(['Boreal']);
    },
    reversePost: async () => indistinguishable((id) => north().post(`/entrepreneur/${id}/companies/owner`).send({}), ids.grace),
    reverseExport: async () => indistinguishable((id) => north().get(`/entrepreneur/${id}/companies/owner/export?format=csv`), ids.grace),
    reverseExportPost: async () => indistinguishable((id) => north().post(`/entrepreneur/${id}/companies/owner/export?format=csv`).send({}), ids.grace),
    add: async () => {
      await indistinguishable((id) => north().post(`/company/${ids.northCo}/partners/${id}`), ids.grace);
      await indistinguishable((id) => north().post(`/company/${id}/partners/${ids.ada}`), ids.southCo);
    },
    remove: async () => indistinguishable((id) => north().delete(`/company/${id}/partners/${ids.grace}`), ids.southCo),
    upload: async () => indistinguishable((id) => north().put(`/company/${id}/logo`).set('Content-Type', 'image/png').send(png), ids.southCo),
    addFile: async () => indistinguishable((id) => north().post(`/company/${id}/photos`).set('Content-Type', 'image/png').send(png), ids.southCo),
    download: async () => {
      await indistinguishable((id) => north().get(`/company/${id}/logo`), ids.southCo);
      await indistinguishable((id) => north().get(`/company/${id}/photos/${southPhoto}`), ids.southCo);
      await as('south').get(`/company/${ids.southCo}/logo`).expect(200);
    },
    deleteFile: async () => {
      await indistinguishable((id) => north().delete(`/company/${id}/logo`), ids.southCo);
      await indistinguishable((id) => north().delete(`/company/${id}/photos/${southPhoto}`), ids.southCo);
      expect(southLogo).toBeTruthy();
    },
    addElement: async () => indistinguishable((id) => north().post(`/entrepreneur/${id}/branches`).send({ city: 'Oslo' }), ids.grace),
    findElement: async () => indistinguishable((id) => north().get(`/entrepreneur/${id}/branches/${element}`), ids.grace),
    patchElement: async () => indistinguishable((id) => north().patch(`/entrepreneur/${id}/branches/${element}`).send({ city: 'Oslo' }), ids.grace),
    deleteElement: async () => indistinguishable((id) => north().delete(`/entrepreneur/${id}/branches/${element}`), ids.grace),
    trash: async () => {
      expect(names(await as('south').get('/companies/trash').expect(200))).toEqual(['Gone']);
      for (const query of ['', '?niceName=Gone', '?tenant=south']) expect(names(await north().get(`/companies/trash${query}`).expect(200))).toEqual([]);
      expect((await north().get('/companies/trash').set('Prefer', 'count=exact').expect(200)).body.status).toMatchObject({ count: 0, match_count: 0 });
    },
    restore: async () => {
      await indistinguishable((id) => north().post(`/company/${id}/restore`), ids.southGone);
      // A living document is not in the trash: as absent.
      await indistinguishable((id) => north().post(`/company/${id}/restore`), ids.northCo);
    },
    purge: async () => {
      await indistinguishable((id) => north().delete(`/company/${id}/purge`), ids.southGone);
      await indistinguishable((id) => north().delete(`/company/${id}/purge`), ids.northCo);
    },
    history: async () => {
      // South's company has versions (its files were uploaded through the routes): none reach north.
      expect((await as('south').get(`/company/${ids.southCo}/history`).expect(200)).body.status.count).toBeGreaterThan(0);
      await indistinguishable((id) => north().get(`/company/${id}/history`), ids.southCo);
    },
    revert: async () => indistinguishable((id) => north().post(`/company/${id}/history/restore?version=1`), ids.southCo),
  };

  describe('the leak matrix: north reaches for south through every action of the route table', () => {
    it('has a cell for every action of the library, and the app serves every action', () => {
      expect(Object.keys(cells).sort()).toEqual(Object.keys(ROUTE_ACTIONS).sort());
      const served = new Set(
        t.app
          .get(ModelRoutesExplorer)
          .routes()
          .map((route) => (route as { action?: string }).action),
      );
      expect([...Object.keys(ROUTE_ACTIONS)].filter((action) => !served.has(action))).toEqual([]);
    });

    for (const action of Object.keys(ROUTE_ACTIONS) as RouteActionName[]) {
      it(`${action}`, async () => {
        await cells[action]();
      });
    }
  });

  describe('random queries by north (a seeded property)', () => {
    /** The seed of CI and of every run without SCOPE_PROPERTY_SEED; printed, so a failure replays. */
    const SEED = Number(process.env.SCOPE_PROPERTY_SEED) || 20_261_126;
    const field = fc.constantFrom('niceName', 'tenant', 'employees', 'owner', 'owner.niceName', 'partners', '_id', 'deletedAt', 'branches.city', 'nope');
    const operator = fc.constantFrom('', '[gte]', '[lt]', '[ne]', '[regex]', '[in]', '[nin]', '[exists]', '[eq]');
    const value = fc.oneof(
      fc.constantFrom('south', 'north', 'Austral', 'Gone', 'Grace', '.*', '^A', '', 'null', 'true', '25', '-1', '[]'),
      fc.constant(null).map(() => ''),
      fc.string({ maxLength: 6 }),
    );
    const condition = fc.tuple(field, operator, value).map(([name, op, v]) => `${name}${op}=${encodeURIComponent(v)}`);
    const extra = fc.constantFrom('', '&sort=-employees', '&sort=niceName&limit=1', '&select=niceName,tenant', '&skip=1', '&expand=owner', '&limit=0');
    const query = fc.tuple(fc.array(condition, { maxLength: 3 }), extra).map(([conditions, tail]) => `${conditions.join('&')}${tail}`);
    const SOUTH = ['Austral', 'Gone', 'Grace', '"south"'];

    it(
      `GET /companies, /companies/trash, /companies/export and the bulk dry runs never answer a 5xx nor a south document, and write ` +
        `nothing (seed ${SEED})`,
      async () => {
        console.info(`scope property: SCOPE_PROPERTY_SEED=${SEED} replays this run`);
        const before = JSON.stringify(await t.connection.db!.collection('companies').find().sort({ _id: 1 }).toArray());
        const sends = [
          (q: string) => north().get(`/companies?${q}`),
          (q: string) => north().get(`/companies/trash?${q}`),
          (q: string) => north().get(`/companies/export?format=json&${q}`),
          (q: string) => north().patch(`/companies?${q}&dryRun=true`).send({ employees: 1 }),
          (q: string) => north().delete(`/companies?${q}&dryRun=true`),
        ];
        const seen = { ok: 0, refused: 0 };
        await fc.assert(
          fc.asyncProperty(query, fc.integer({ min: 0, max: sends.length - 1 }), async (q, which) => {
            const response = await sends[which](q);
            expect(response.status).toBeLessThan(500);
            if (response.status === 200) seen.ok += 1;
            else seen.refused += 1;
            // A refusal may quote the client's own value back: only what the query did not hold is a leak.
            const sent = decodeURIComponent(q);
            const text = response.text;
            for (const word of SOUTH.filter((word) => !sent.includes(word.replaceAll('"', ''))))
              expect({ q, which, leaked: text.includes(word) }).toEqual({ q, which, leaked: false });
            // No id of south's companies either (Grace's id is held by north's Bridge, as stored: it is north's data).
            for (const id of [ids.southCo, ids.southGone]) expect({ q, which, leaked: text.includes(id) }).toEqual({ q, which, leaked: false });
          }),
          { seed: SEED, numRuns: 120 },
        );
        expect(JSON.stringify(await t.connection.db!.collection('companies').find().sort({ _id: 1 }).toArray())).toBe(before);
        expect([seen.ok > 0, seen.refused > 0]).toEqual([true, true]);
      },
      120_000,
    );
  });

  describe('across references', () => {
    it('expand: a target outside the scope expands to null, as a missing one', async () => {
      const one = await north().get(`/company/${ids.crossCo}?expand=owner,partners`).expect(200);
      expect(one.body.owner).toBeNull();
      expect((one.body.partners as Array<{ niceName: string }>).map((partner) => partner.niceName)).toEqual(['Ada']);
      expect(JSON.stringify(one.body)).not.toContain('Grace');
      const page = await north().get('/companies?expand=owner').expect(200);
      expect(JSON.stringify(page.body)).not.toContain('Grace');
    });

    it('a filter across a reference matches no target outside the scope: no oracle on its fields', async () => {
      expect(names(await north().get('/companies?owner.niceName=Grace').expect(200))).toEqual([]);
      expect(names(await north().get('/companies?owner.niceName[regex]=^G').expect(200))).toEqual([]);
      expect(names(await north().get('/companies?owner.niceName=Ada').expect(200))).toEqual(['Boreal']);
      expect(names(await as('*').get('/companies?owner.niceName=Grace').expect(200))).toEqual(['Austral', 'Bridge']);
    });
  });

  describe('the field rule beside the scope (every answer of the matrix was checked for `ledger`)', () => {
    it("a request of the fin group sees ledger in its own tenant's documents, their trash and their history; never in another tenant's", async () => {
      const fin = (path: string) => t.http().get(path).set('x-tenant', 'south').set('x-role', 'fin');
      expect((await fin(`/company/${ids.southCo}`).expect(200)).body.ledger).toBe('LEDGER-south');
      expect((await fin('/companies/trash').expect(200)).body.result.map((doc: { ledger?: string }) => doc.ledger)).toEqual(['LEDGER-gone']);
      const history = (await fin(`/company/${ids.southCo}/history`).expect(200)).body.result as Array<{ document: { ledger?: string } }>;
      expect(history.length).toBeGreaterThan(0);
      for (const entry of history) expect(entry.document.ledger).toBe('LEDGER-south');
      expect((await fin(`/company/${ids.northCo}`).expect(404)).body.code).toBe('MR_NOT_FOUND');
    });
  });

  describe('a scope whose writes reach fewer documents than its reads ("published or mine")', () => {
    it('reads the published notes of others, and writes none of them: 403 MR_OUT_OF_SCOPE, nothing written', async () => {
      expect((await north().get(`/note/${ids.southPublished}`).expect(200)).body).toMatchObject({ text: 'open' });
      await indistinguishable((id) => north().get(`/note/${id}`), ids.southPrivate);
      await expectRefusedUnchanged(t.connection, () => north().patch(`/note/${ids.southPublished}`).send({ text: 'mine now' }), {
        status: 403,
        code: 'MR_OUT_OF_SCOPE',
      });
      await expectRefusedUnchanged(t.connection, () => north().delete(`/note/${ids.southPublished}`), { status: 403, code: 'MR_OUT_OF_SCOPE' });
      await indistinguishable((id) => north().patch(`/note/${id}`).send({ text: 'x' }), ids.southPrivate);
      // Its own, it writes; a create is stamped with the write scope's tenant.
      const mine = await north().post('/note').send({ text: 'mine' }).expect(201);
      expect(mine.body).toMatchObject({ tenant: 'north', published: false });
      await north().patch(`/note/${mine.body._id}`).send({ published: true }).expect(200);
      expect((await as('south').get(`/note/${mine.body._id}`).expect(200)).body.text).toBe('mine');
      await north().delete(`/note/${mine.body._id}`).expect(200);
    });
  });

  describe('the count of a scoped search', () => {
    it(
      'is counted wholly for an exact count, up to search.estimateLimit + 1 for an estimate (a lower bound past it), not at all for none (what the page ' +
        "shows): never the collection's metadata",
      async () => {
        const mine = [await north().post('/note').send({ text: 'a' }).expect(201), await north().post('/note').send({ text: 'b' }).expect(201)];
        // North reads its two notes and south's published one: 3; the collection holds 4.
        expect((await north().get('/notes?limit=1').set('Prefer', 'count=exact').expect(200)).body.status).toMatchObject({ count: 3, match_count: 3 });
        expect((await north().get('/notes?limit=1').set('Prefer', 'count=estimated').expect(200)).body.status.count).toBe(2);
        // None counts nothing: the count is what the page shows.
        expect((await north().get('/notes?limit=1').set('Prefer', 'count=none').expect(200)).body.status.count).toBe(1);
        for (const created of mine) await north().delete(`/note/${created.body._id}`).expect(200);
      },
    );
  });

  describe('in your own code', () => {
    it('your routes on a generated controller are scoped with no code; another controller with RowScopeInterceptor', async () => {
      expect((await north().get('/company/names').expect(200)).body).toEqual(['Boreal', 'Bridge']);
      expect((await as('south').get('/company/names').expect(200)).body).toEqual(['Austral']);
      expect((await north().get('/dashboard').expect(200)).body).toEqual(['Ada']);
      expect((await as('*').get('/dashboard').expect(200)).body).toEqual(['Ada', 'Grace']);
    });

    it("outside a request nothing is scoped; runWithRequest applies the request's scope", async () => {
      const repository = t.app.get<ModelRepository>(getModelRepositoryToken(Company));
      expect(await repository.findOne(ids.southCo)).not.toBeNull();
      const request = { headers: { 'x-tenant': 'north' } };
      expect(await runWithRequest(request, () => repository.findOne(ids.southCo))).toBeNull();
      const page = await runWithRequest(request, () => repository.search({ filter: {}, limit: 10, skip: 0 }));
      expect(page.result.map((doc) => doc.niceName).sort()).toEqual(['Boreal', 'Bridge']);
      const created = await runWithRequest(request, () => repository.create({ niceName: 'Scripted' }));
      expect(created).toMatchObject({ tenant: 'north' });
      await expect(runWithRequest(request, () => repository.update(String(created._id), { tenant: 'south' }))).rejects.toMatchObject({
        code: 'MR_OUT_OF_SCOPE',
      });
      await repository.delete(String(created._id));
    });
  });
}
