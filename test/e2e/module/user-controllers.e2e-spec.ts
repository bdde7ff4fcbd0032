import {
  Body,
  Controller,
  Get,
  Global,
  HttpCode,
  Injectable,
  Module,
  Param,
  Post,
  Query,
  UseGuards,
  type CanActivate,
  type ExecutionContext,
} from '@nestjs/common';
import type { Connection } from 'mongoose';
import type request from 'supertest';
import {
  GeneratedController,
  InjectModelRepository,
  ModelRoutesExplorer,
  ModelRepository,
  ModelRoutesModule,
  type PlainDocument,
  type RouteDefinition,
} from '../../../src/index.js';
import { Kiosk, Shop } from '../../fixtures/extend-models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function userControllersSpec(): void {
  /** Controllers that extend `GeneratedController(resource)`, listed in `forRoot({ controllers })`. */

  const engine = useEngine();

  /** A provider of the app, injected into the user's controller. */
  @Injectable()
  class ShopAudit {
    readonly calls: string[] = [];
  }

  @Global()
  @Module({ providers: [ShopAudit], exports: [ShopAudit] })
  class AuditModule {}

  /** Class-level guard of ShopController: refuses requests with `x-shop-block: 1`. */
  @Injectable()
  class ShopBlockGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-shop-block'] !== '1';
    }
  }

  @Controller()
  @UseGuards(ShopBlockGuard)
  class ShopController extends GeneratedController(Shop) {
    constructor(
      @InjectModelRepository(Shop) private readonly shops: ModelRepository<Shop>,
      private readonly audit: ShopAudit,
    ) {
      super();
    }

    // Declared before `stats` on purpose: /shop/stats must still not be taken for /shop/:shop_id.
    override async findOne(id: string): Promise<PlainDocument<Shop> & { viewedThrough: string }> {
      const shop = await super.findOne(id);
      this.audit.calls.push(`findOne:${id}`);
      return { ...shop, viewedThrough: 'ShopController' };
    }

    @Get('stats')
    async stats(@Query('city') city?: string) {
      return {
        count: await this.shops.model.countDocuments(city ? { city } : {}),
        sameRepository: this.shops === this.repository,
        modelName: this.repository.model.modelName,
      };
    }

    @Get('/shops-report')
    async report() {
      const { result } = await this.repository.search({ filter: {}, limit: 100, skip: 0, sort: { name: 1 } });
      return { names: result.map((shop) => shop.name) };
    }

    override async create(body: unknown): Promise<PlainDocument<Shop>> {
      this.audit.calls.push('create');
      const input = body as Record<string, unknown> | null;
      const upper = input && typeof input === 'object' && typeof input.name === 'string' ? { ...input, name: input.name.toUpperCase() } : body;
      return super.create(upper);
    }

    @Post(':shop_id/visits')
    @HttpCode(200)
    async visit(@Param('shop_id') id: string, @Body() body: { count?: number }, @Query('note') note?: string) {
      const shop = await super.findOne(id);
      const updated = await this.repository.update(id, { visits: (shop.visits ?? 0) + (body.count ?? 1) });
      return { shop: updated, note: note ?? null };
    }

    @Get('by-city/:city')
    async byCity(@Param('city') city: string, @Query('limit') limit?: string) {
      const { result } = await this.repository.search({ filter: { city }, limit: Number(limit ?? 20), skip: 0, sort: { name: 1 } });
      return result.map((shop) => shop.name);
    }
  }

  /** Replaces the generated POST /kiosk with a handler of its own of the same name. */
  @Controller()
  class KioskController extends GeneratedController(Kiosk) {
    @Post()
    @HttpCode(202)
    override async create(@Body() body: unknown): Promise<PlainDocument<Kiosk>> {
      const name = (body as { name?: unknown } | undefined)?.name;
      return this.repository.create({ name: `replaced:${String(name)}` });
    }
  }

  let http: () => ReturnType<typeof request>;
  let connection: Connection;
  let audit: ShopAudit;
  let table: RouteDefinition[];

  beforeAll(async () => {
    const t = await bootTestApp(engine, {
      imports: [AuditModule],
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Shop, Kiosk], controllers: [ShopController, KioskController] }),
    });
    ({ connection, http } = t);
    audit = t.app.get(ShopAudit);
    table = t.app.get(ModelRoutesExplorer).routes();
  });

  let corner: { _id: string; name: string };
  beforeEach(async () => {
    await Promise.all(Object.values(connection.models).map((model) => model.deleteMany({})));
    audit.calls.length = 0;
    const docs = await connection.model('Shop').create([
      { name: 'CORNER', city: 'Paris', visits: 1 },
      { name: 'BAKERY', city: 'Paris' },
      { name: 'DOCKS', city: 'Lyon' },
    ]);
    corner = { _id: String(docs[0]._id), name: 'CORNER' };
  });

  describe('custom endpoints', () => {
    it('GET /shop/stats answers the custom handler, not /shop/:shop_id, though declared after findOne', async () => {
      const response = await http().get('/shop/stats').expect(200);
      expect(response.body).toEqual({ count: 3, sameRepository: true, modelName: 'Shop' });
      expect(audit.calls).toEqual([]);
    });

    it('@Query of a custom route works: GET /shop/stats?city=Paris', async () => {
      expect((await http().get('/shop/stats?city=Paris').expect(200)).body.count).toBe(2);
    });

    it("a path starting with '/' is absolute: GET /shops-report", async () => {
      const response = await http().get('/shops-report').expect(200);
      expect(response.body).toEqual({ names: ['BAKERY', 'CORNER', 'DOCKS'] });
    });

    it('an absolute path is not also mapped under the resource: GET /shop/shops-report is the findOne route', async () => {
      expectError(await http().get('/shop/shops-report'), 400, 'MR_INVALID_ID');
    });

    it('@Param, @Query and @Body of a custom route work: POST /shop/:shop_id/visits?note=hi', async () => {
      const response = await http().post(`/shop/${corner._id}/visits?note=hi`).send({ count: 4 }).expect(200);
      expect(response.body).toEqual({ shop: { _id: corner._id, name: 'CORNER', city: 'Paris', visits: 5 }, note: 'hi' });
    });

    it('a custom route calling super.findOne gets its 404 in the error shape', async () => {
      expectError(await http().post(`/shop/${MISSING_ID}/visits`).send({}), 404, 'MR_NOT_FOUND');
    });

    it('a custom route with a literal segment then a param: GET /shop/by-city/Lyon', async () => {
      expect((await http().get('/shop/by-city/Paris?limit=1').expect(200)).body).toEqual(['BAKERY']);
      expect((await http().get('/shop/by-city/Lyon').expect(200)).body).toEqual(['DOCKS']);
    });

    it('the route table lists the custom routes under the resource, before /shop/:shop_id', () => {
      const paths = table.filter((route) => route.controller === 'ShopController').map((route) => `${route.method} ${route.path}`);
      expect(paths).toEqual(expect.arrayContaining(['GET /shop/stats', 'GET /shops-report', 'POST /shop/:shop_id/visits', 'GET /shop/by-city/:city']));
      expect(paths.indexOf('GET /shop/stats')).toBeLessThan(paths.indexOf('GET /shop/:shop_id'));
    });
  });

  describe('overrides that call super', () => {
    it('create: the override runs (name upper-cased, call recorded), 201 with Location', async () => {
      const response = await http().post('/shop').send({ name: 'florist', city: 'Nice' }).expect(201);
      expect(response.body).toEqual({ _id: expect.any(String), name: 'FLORIST', city: 'Nice' });
      expect(response.headers.location).toBe(`/shop/${response.body._id}`);
      expect(audit.calls).toEqual(['create']);
      expect(await connection.model('Shop').countDocuments({ name: 'FLORIST' })).toBe(1);
    });

    it('create: the route still validates, an unknown field is a 400 MR_INVALID_BODY and nothing is stored', async () => {
      const response = await http().post('/shop').send({ name: 'florist', isAdmin: true });
      expectError(response, 400, 'MR_INVALID_BODY');
      expect(response.body.message).toContain('isAdmin');
      expect(await connection.model('Shop').countDocuments()).toBe(3);
    });

    it('create: schema validators still run (missing name is a 400 MR_VALIDATION_FAILED)', async () => {
      expectError(await http().post('/shop').send({ city: 'Nice' }), 400, 'MR_VALIDATION_FAILED');
      expect(await connection.model('Shop').countDocuments()).toBe(3);
    });

    it('findOne: GET /shop/:shop_id goes through the override', async () => {
      const response = await http().get(`/shop/${corner._id}`).expect(200);
      expect(response.body).toEqual({ _id: corner._id, name: 'CORNER', city: 'Paris', visits: 1, viewedThrough: 'ShopController' });
      expect(audit.calls).toEqual([`findOne:${corner._id}`]);
    });

    it('findOne: super keeps the 404 and the 400 of the generated route', async () => {
      expectError(await http().get(`/shop/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
      expectError(await http().get('/shop/not-an-id'), 400, 'MR_INVALID_ID');
      expect(audit.calls).toEqual([]);
    });

    it('routes that are not overridden are still generated (PUT, DELETE, GET and POST /shops)', async () => {
      expect((await http().put(`/shop/${corner._id}`).send({ visits: 9 }).expect(200)).body.visits).toBe(9);
      expect((await http().get('/shops?city=Paris').expect(200)).body.status.match_count).toBe(2);
      expect(
        (
          await http()
            .post('/shops')
            .send({ query: { city: 'Lyon' } })
            .expect(200)
        ).body.result,
      ).toHaveLength(1);
      expect((await http().delete(`/shop/${corner._id}`).expect(200)).body._id).toBe(corner._id);
      expect(await connection.model('Shop').countDocuments()).toBe(2);
    });
  });

  describe('class-level @UseGuards on the user class', () => {
    it.each([
      ['get', '/shops'],
      ['post', '/shops'],
      ['post', '/shop'],
      ['get', '/shop/:id'],
      ['put', '/shop/:id'],
      ['delete', '/shop/:id'],
      ['get', '/shop/stats'],
      ['get', '/shops-report'],
    ] as const)('applies to %s %s (403 MR_FORBIDDEN, nothing changed)', async (method, template) => {
      const response = await http()[method](template.replace(':id', corner._id)).set('x-shop-block', '1').send({ name: 'blocked' });
      expectError(response, 403, 'MR_FORBIDDEN');
      expect(await connection.model('Shop').countDocuments()).toBe(3);
      expect(await connection.model('Shop').countDocuments({ name: { $in: ['blocked', 'BLOCKED'] } })).toBe(0);
      expect(audit.calls).toEqual([]);
    });

    it('does not apply to the routes of another resource', async () => {
      await http().get('/kiosks').set('x-shop-block', '1').expect(200);
    });
  });

  describe('a user handler with its own route and the name of a generated one', () => {
    it('replaces the generated route: @Post() create answers POST /kiosk', async () => {
      const response = await http().post('/kiosk').send({ name: 'north' }).expect(202);
      expect(response.body).toEqual({ _id: expect.any(String), name: 'replaced:north' });
      expect(response.headers.location).toBeUndefined();
      expect(await connection.model('Kiosk').countDocuments({ name: 'replaced:north' })).toBe(1);
    });

    it('is listed once, as its own route', () => {
      const posts = table.filter((route) => route.method === 'POST' && route.path === '/kiosk');
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatchObject({ controller: 'KioskController', handler: 'create' });
    });

    it('leaves the other generated routes of the resource in place', async () => {
      const doc = await connection.model('Kiosk').create({ name: 'south' });
      expect(
        (
          await http()
            .get(`/kiosk/${String(doc._id)}`)
            .expect(200)
        ).body,
      ).toEqual({ _id: String(doc._id), name: 'south' });
      expect(
        (
          await http()
            .put(`/kiosk/${String(doc._id)}`)
            .send({ name: 'east' })
            .expect(200)
        ).body.name,
      ).toBe('east');
      expect((await http().get('/kiosks').expect(200)).body.status.match_count).toBe(1);
    });
  });
}
