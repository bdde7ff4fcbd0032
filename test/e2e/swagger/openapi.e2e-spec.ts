import SwaggerParser from '@apidevtools/swagger-parser';
import type { Type } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject } from '@nestjs/swagger';
import { readFileSync, writeFileSync } from 'node:fs';
import { ModelRoutesExplorer } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { AppModule } from '../../../sample-app/app.module.js';
import { Account, Company, Entrepreneur } from '../../fixtures/models.js';
import { Article, Author, Tag } from '../../fixtures/blog-models.js';
import { Contact, Gadget, Maker } from '../../fixtures/dto-models.js';
import { Agency, Agent, Plain } from '../../fixtures/serialization-models.js';
import { Member, Post } from '../../fixtures/protected-models.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { OpenApiContract } from '../../support/openapi-contract.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function openapiSpec(): void {
  const engine = useEngine();
  let t: TestApp;
  let document: OpenAPIObject;
  const config = () => new DocumentBuilder().setTitle('fixture').setVersion('1').build();

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Account, Member, Post], routes: {}, references: {} });
    document = createModelRoutesDocument(t.app, config());
  });

  /** For one describe block: an app of these resources and its document, closed after the block. */
  function documentedApp(resources: Type[]): { doc: OpenAPIObject } {
    const state = {} as { app?: TestApp; doc: OpenAPIObject };
    beforeAll(async () => {
      state.app = await createTestApp(engine, { resources });
      state.doc = createModelRoutesDocument(state.app.app, config());
    });
    afterAll(() => state.app?.close());
    return state;
  }

  /** `/company/:company_id` → `/company/{company_id}`, as OpenAPI writes it. */
  const template = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const operations = (doc: OpenAPIObject) =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item as object)
        .filter((key) => ['get', 'post', 'put', 'delete', 'patch'].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
  const schemas = () => document.components!.schemas as Record<string, { properties?: Record<string, unknown>; required?: string[] }>;

  describe('the document of the fixture app', () => {
    it('is valid OpenAPI 3', async () => {
      await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    });

    it('documents exactly the mapped routes, no more, no fewer', () => {
      const table = t.app.get(ModelRoutesExplorer).routes();
      expect(operations(document).sort()).toEqual(table.map((route) => `${route.method} ${template(route.path)}`).sort());
    });

    it('has unique, readable operationIds', () => {
      const ids = Object.values(document.paths).flatMap((item) => Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId));
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(
        expect.arrayContaining([
          'company_findOne',
          'company_create',
          'company_patch',
          'company_searchPost',
          'company_owner_find',
          'company_owner_reverse',
          'company_owner_reversePost',
        ]),
      );
    });

    it('never shows a hidden field, in any schema', () => {
      const text = JSON.stringify(document);
      for (const hidden of ['passwordHash', 'internalNote', 'moderationScore']) expect(text).not.toContain(hidden);
      expect(JSON.stringify(schemas().Member.properties)).not.toContain('zip');
    });

    it('leaves _id, timestamps and readonly fields out of request bodies, and requires nothing on update', () => {
      expect(Object.keys(schemas().AccountCreateDto.properties!).sort()).toEqual(['credits', 'email', 'plan', 'profile']);
      expect(schemas().AccountCreateDto.required).toEqual(['email']);
      expect(schemas().AccountUpdateDto.required).toBeUndefined();
      expect(schemas().MemberCreateDto.properties).not.toHaveProperty('role');
      expect(schemas().Account.properties).toHaveProperty('createdAt');
    });

    it('describes types from the Mongoose schema', () => {
      const account = schemas().Account.properties as Record<string, Record<string, unknown>>;
      expect(account.plan).toMatchObject({ type: 'string', enum: ['free', 'pro'] });
      expect(account.credits).toMatchObject({ type: 'number', minimum: 0 });
      expect(account.createdAt).toMatchObject({ type: 'string', format: 'date-time' });
      expect(account._id).toMatchObject({ type: 'string', pattern: '^[0-9a-fA-F]{24}$' });
      const company = schemas().Company.properties as Record<string, Record<string, unknown>>;
      expect(company.owner).toMatchObject({ type: 'string', pattern: '^[0-9a-fA-F]{24}$' });
    });
  });

  describe('contract: responses match the documented schemas', () => {
    it('for every generated route, on success and on failure', async () => {
      // t.http() checks every response against the document already; this test also names the
      // documented route of each request, so a request the checker could not match fails here too.
      const contract = new OpenApiContract(document);
      const seen: string[] = [];
      const send = async (method: 'get' | 'post' | 'put' | 'delete', path: string, route: string, body?: unknown) => {
        const response = await (body === undefined
          ? t.http()[method](path)
          : t
              .http()
              [method](path)
              .send(body as object));
        contract.check(method, route, response.status, response.body);
        seen.push(`${method} ${route} ${response.status}`);
        return response;
      };
      const user = (await send('post', '/user', '/user', { niceName: 'Ada', birth: '1815-12-10' })).body;
      const company = (await send('post', '/company', '/company', { niceName: 'Acme', owner: user._id, employees: 3 })).body;
      await send('post', '/company', '/company', { employees: 3 });
      await send('post', '/account', '/account', { email: 'a@example.com', passwordHash: 'h', profile: { displayName: 'A' } });
      await send('get', `/company/${company._id}`, '/company/{company_id}');
      await send('get', '/company/nope', '/company/{company_id}');
      await send('get', `/company/${MISSING_ID}`, '/company/{company_id}');
      await send('put', `/company/${company._id}`, '/company/{company_id}', { location: null, employees: 4 });
      await send('put', `/user/${user._id}`, '/user/{user_id}', { birth: null });
      await send('get', '/companies?limit=5', '/companies');
      await send('get', '/companies?limit=0', '/companies');
      await send('post', '/companies', '/companies', { query: { niceName: { $regex: '^a', $options: 'i' } } });
      await send('post', '/companies', '/companies', { query: { $where: '1' } });
      await send('get', '/accounts', '/accounts');
      await send('get', `/company/${company._id}/owner`, '/company/{company_id}/owner');
      await send('get', `/user/${user._id}/companies/owner`, '/user/{user_id}/companies/owner');
      await send('post', `/user/${user._id}/companies/owner`, '/user/{user_id}/companies/owner', { limit: 1 });
      await send('delete', `/company/${company._id}`, '/company/{company_id}');
      await send('get', `/company/${company._id}/owner`, '/company/{company_id}/owner');
      expect(seen).toHaveLength(19);
    });
  });

  describe('write-only fields, PATCH and the list of an array of references', () => {
    const app = documentedApp([Author, Tag, Article]);
    const schema = (name: string) => (app.doc.components!.schemas as Record<string, { properties: Record<string, Record<string, unknown>> }>)[name];

    it('is valid OpenAPI 3', async () => {
      await expect(SwaggerParser.validate(structuredClone(app.doc) as never)).resolves.toBeDefined();
    });

    it('puts write-only fields in the create and update bodies, marked writeOnly, and in no response', () => {
      expect(schema('AuthorCreateDto').properties.password).toEqual(expect.objectContaining({ type: 'string', writeOnly: true }));
      expect(schema('AuthorUpdateDto').properties.pin).toEqual(expect.objectContaining({ type: 'string', writeOnly: true }));
      expect(schema('Author').properties).not.toHaveProperty('password');
      expect(schema('Author').properties).not.toHaveProperty('pin');
      expect(JSON.stringify(app.doc)).not.toContain('passwordHash');
    });

    it('leaves hidden sub-fields and arrays that hold them out of the bodies, as the routes refuse them', () => {
      expect(schema('ArticleMetaUpdateDto').properties).not.toHaveProperty('token');
      expect(schema('ArticleUpdateDto').properties).not.toHaveProperty('lines');
      expect(schema('Article').properties).toHaveProperty('lines');
    });

    it('documents PATCH with the update body, and status.missing on the list of an array of references', () => {
      const patch = (app.doc.paths['/article/{article_id}'] as Record<string, { operationId: string; requestBody: unknown }>).patch;
      expect(patch.operationId).toBe('article_patch');
      expect(JSON.stringify(patch.requestBody)).toContain('#/components/schemas/ArticleUpdateDto');
      const list = (app.doc.paths['/article/{article_id}/tags'] as Record<string, { responses: Record<string, unknown> }>).get.responses['200'];
      expect(JSON.stringify(list)).toContain('"missing"');
    });
  });

  describe('request bodies: the DTO classes', () => {
    const app = documentedApp([Gadget, Maker, Contact]);
    type Schema = { properties: Record<string, Record<string, unknown>>; required?: string[]; additionalProperties?: unknown };
    const schema = (name: string) => (app.doc.components!.schemas as Record<string, Schema>)[name];
    const body = (path: string, method: string) =>
      (app.doc.paths[path] as Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>)[method].requestBody.content['application/json']
        .schema;

    it('is valid OpenAPI 3', async () => {
      await expect(SwaggerParser.validate(structuredClone(app.doc) as never)).resolves.toBeDefined();
    });

    it('names each body after its DTO class: create, update, search and reverse search', () => {
      expect(body('/gadget', 'post')).toEqual({ $ref: '#/components/schemas/GadgetCreateDto' });
      expect(body('/gadget/{gadget_id}', 'put')).toEqual({ $ref: '#/components/schemas/GadgetUpdateDto' });
      expect(body('/gadget/{gadget_id}', 'patch')).toEqual({ $ref: '#/components/schemas/GadgetUpdateDto' });
      expect(body('/gadgets', 'post')).toEqual({ $ref: '#/components/schemas/GadgetSearchDto' });
      expect(body('/maker/{maker_id}/gadgets/maker', 'post')).toEqual({ $ref: '#/components/schemas/GadgetMakerSearchDto' });
      expect(body('/contact', 'post')).toEqual({ $ref: '#/components/schemas/CreateContactDto' });
      expect(body('/contact/{contact_id}', 'put')).toEqual({ $ref: '#/components/schemas/UpdateContactDto' });
    });

    it('describes a generated DTO as precisely as the Mongoose schema: types, required, bounds, enums, nested classes', () => {
      const create = schema('GadgetCreateDto');
      expect(create.additionalProperties).toBe(false);
      expect(create.required).toEqual(['name']);
      expect(Object.keys(create.properties).sort()).toEqual([
        'active',
        'code',
        'color',
        'count',
        'extra',
        'fit',
        'lines',
        'maker',
        'name',
        'partners',
        'pin',
        'releasedAt',
        'score',
        'size',
        'status',
        'tags',
      ]);
      expect(create.properties.name).toEqual({ type: 'string', minLength: 3, maxLength: 20 });
      expect(create.properties.code).toMatchObject({ type: 'string', pattern: '^[a-z]+-\\d+$', nullable: true });
      expect(create.properties.score).toMatchObject({ type: 'number', minimum: 0, maximum: 100, nullable: true });
      expect(create.properties.color).toMatchObject({ type: 'string', enum: ['red', 'green'] });
      expect(create.properties.pin).toMatchObject({ type: 'string', writeOnly: true });
      expect(create.properties.count).toMatchObject({ type: 'integer', format: 'int32', nullable: true });
      expect(create.properties.extra).toEqual({ anyOf: [{}] });
      expect(create.properties.tags).toMatchObject({ type: 'array', items: { type: 'string' } });
      expect(create.properties.size).toMatchObject({ nullable: true, allOf: [{ $ref: '#/components/schemas/GadgetSizeCreateDto' }] });
      expect(create.properties.lines).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/GadgetLinesItemDto' } });
      expect(schema('GadgetSizeCreateDto')).toMatchObject({
        required: ['unit'],
        additionalProperties: false,
        properties: { unit: { type: 'string', enum: ['cm', 'in'] } },
      });
      expect(schema('GadgetSizeUpdateDto').required).toBeUndefined();
      expect(schema('GadgetLinesItemDto')).toMatchObject({
        required: ['sku', 'qty'],
        properties: { sku: { type: 'string', minLength: 2 }, qty: { type: 'number', minimum: 1 } },
      });
      expect(schema('GadgetUpdateDto').required).toBeUndefined();
    });

    it("shows a user's DTO with its own @ApiProperty, merged with the generated parent's properties", () => {
      const create = schema('CreateContactDto');
      expect(create.properties.email).toMatchObject({ type: 'string', format: 'email', description: 'Where we write to', nullable: true });
      expect(create.properties.name).toEqual({ type: 'string' });
      expect(create.required).toEqual(expect.arrayContaining(['name']));
      expect(schema('UpdateContactDto').properties).toEqual({ phone: { type: 'string', description: 'Digits and spaces', maxLength: 12 } });
      // The generated parent is documented as generated, without the user's additions.
      expect(schema('ContactCreateDto')).toBeUndefined();
    });
  });

  describe('responses: class-transformer groups', () => {
    const app = documentedApp([Agent, Agency, Plain]);

    it('say which groups see a group-only field, which is not required', async () => {
      await SwaggerParser.validate(structuredClone(app.doc) as never);
      const agency = (app.doc.components!.schemas as Record<string, { properties: Record<string, { description?: string }>; required: string[] }>).Agency;
      expect(agency.properties.budget.description).toBe('Visible to groups: admin');
      expect(agency.required).not.toContain('budget');
      expect(agency.properties.name.description).toBeUndefined();
    });
  });

  describe('removed routes', () => {
    it('are absent from the document', async () => {
      const trimmed = await createTestApp(engine, {
        resources: [Entrepreneur, Company],
        routes: { delete: false, search: false, searchPost: false },
        references: { reverse: false, reversePost: false },
      });
      const doc = createModelRoutesDocument(trimmed.app, config());
      await SwaggerParser.validate(structuredClone(doc) as never);
      expect(operations(doc).sort()).toEqual([
        'GET /company/{company_id}',
        'GET /company/{company_id}/owner',
        'GET /user/{user_id}',
        'PATCH /company/{company_id}',
        'PATCH /user/{user_id}',
        'POST /company',
        'POST /user',
        'PUT /company/{company_id}',
        'PUT /user/{user_id}',
      ]);
    });
  });

  describe('the document of the sample app', () => {
    const snapshot = new URL('../../openapi/sample-app.openapi.json', import.meta.url);

    it('is valid, documents exactly its routes, and matches the committed snapshot', async () => {
      const { app } = await bootTestApp(engine, { mongoose: false, imports: ({ uri, dbName }) => [AppModule.forDatabase(uri, dbName)] });
      const sample = createModelRoutesDocument(
        app,
        new DocumentBuilder().setTitle('model-routes sample').addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, 'api-key').build(),
      );
      await SwaggerParser.validate(structuredClone(sample) as never);
      const table = app.get(ModelRoutesExplorer).routes();
      expect(operations(sample).sort()).toEqual(table.map((route) => `${route.method} ${template(route.path)}`).sort());
      // Decorators of route options reach the document: the guarded delete asks for the API key.
      expect((sample.paths['/company/{company_id}'] as Record<string, { security?: unknown }>).delete.security).toEqual([{ 'api-key': [] }]);
      // The user's own endpoint is documented by the user's own decorators.
      expect((sample.paths['/company/stats'] as Record<string, { operationId?: string; tags?: string[] }>).get).toMatchObject({
        operationId: 'company_stats',
        tags: ['Company'],
      });
      const text = `${JSON.stringify(sample, null, 2)}\n`;
      // UPDATE_OPENAPI_SNAPSHOT=1 npm test -- openapi rewrites it; the diff is then reviewed like code.
      if (process.env.UPDATE_OPENAPI_SNAPSHOT) writeFileSync(snapshot, text);
      expect(text).toBe(readFileSync(snapshot, 'utf8'));
    });
  });
}
