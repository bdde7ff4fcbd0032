import { Controller, Get, Injectable, Module, Param, UnauthorizedException, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { MongooseModule, Prop, Schema, raw } from '@nestjs/mongoose';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Types, Schema as MongooseSchema } from 'mongoose';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DocumentBuilder } from '@nestjs/swagger';
import { FileProp, FileRef, GeneratedController, GeneratedResource, ModelRoutesConfigError, ModelRoutesModule } from '../../../src/index.js';
import {
  BackOfficeModule,
  type BackOfficeMetadata,
  type BackOfficeOptions,
  type BackOfficeSettings,
  type BackOfficeSettingsFactory,
  type FieldMetadata,
  type ResourceMetadata,
} from '../../../src/back-office/index.js';
import { backOfficeAppDir } from '../../../src/back-office/back-office-assets.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { bootTestApp, contractChecked, initPlatformApp, testAdapter, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeSpec(): void {
  /** BackOfficeModule: the page, its files, and the metadata of the generated routes (issue 15). */

  const engine = useEngine();

  @GeneratedResource({ path: 'person', plural: 'people', hidden: ['secretNote'], writeOnly: ['password'], readonly: ['score'] })
  @Schema({ timestamps: true })
  class Person {
    @Prop({ required: true, minlength: 2, maxlength: 80 }) name!: string;
    @Prop() nickname?: string;
    @Prop() secretNote?: string;
    @Prop({ select: false }) apiToken?: string;
    @Prop() password?: string;
    @Prop({ min: 0, max: 100 }) score?: number;
    @Prop({ enum: ['admin', 'editor', 'viewer'], default: 'viewer' }) role?: string;
    @Prop() active?: boolean;
    @Prop() birth?: Date;
    @Prop(raw({ city: { type: String, required: true }, zip: { type: String }, hiddenCode: { type: String, select: false } })) address?: {
      city: string;
      zip?: string;
    };
    @Prop({ type: [String] }) tags?: string[];
    @Prop({ type: MongooseSchema.Types.Mixed }) extra?: unknown;
    @FileProp({ accept: ['image/png', 'image/jpeg'], maxSize: '1MB', variants: true }) avatar?: FileRef;
  }

  @GeneratedResource({
    routes: { delete: false },
    references: { owner: { reverse: false } },
    files: { photos: { deleteFile: false } },
  })
  @Schema()
  class Project {
    @Prop({ required: true }) title!: string;
    @Prop({ type: Types.ObjectId, ref: 'Person', required: true }) owner!: Types.ObjectId;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Person' }] }) members?: Types.ObjectId[];
    @Prop({ type: [{ label: String, done: Boolean }] }) tasks?: Array<{ label: string; done: boolean }>;
    @Prop({ type: MongooseSchema.Types.ObjectId }) externalId?: Types.ObjectId;
    @FileProp({ maxSize: '5MB', accept: ['image/png', 'application/pdf'] }) photos?: FileRef[];
  }

  /** A user override of findOne on the generated path: the page may still call it. */
  @Controller()
  class ProjectController extends GeneratedController(Project) {
    @Get(':project_id')
    override findOne(@Param('project_id') id: string) {
      return super.findOne(id);
    }
  }

  /** Admits requests with `x-admin: yes`. */
  @Injectable()
  class AdminGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const request = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
      if (request.headers['x-admin'] !== 'yes') throw new UnauthorizedException('Send x-admin: yes');
      return true;
    }
  }

  function boot(options?: BackOfficeOptions, globalPrefix?: string): Promise<TestApp> {
    return bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project], controllers: [ProjectController] }),
      imports: [BackOfficeModule.forRoot(options)],
      globalPrefix,
    });
  }

  /** The scripts of the built app, but the module of types only (metadata.js), which holds no code and is not served. */
  const scripts = readdirSync(backOfficeAppDir()!).filter((file) => file.endsWith('.js') && file !== 'metadata.js');
  const CSP =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'";

  function resource(metadata: BackOfficeMetadata, name: string): ResourceMetadata {
    const found = metadata.resources.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no resource ${name}`);
    return found;
  }

  function field(fields: readonly FieldMetadata[], path: string): FieldMetadata | undefined {
    for (const candidate of fields) {
      if (candidate.path === path) return candidate;
      const inner = candidate.fields && field(candidate.fields, path);
      if (inner) return inner;
    }
    return undefined;
  }

  describe('BackOfficeModule.forRoot() with its defaults', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot();
    });
    afterAll(() => t.close());

    it.each(['/admin', '/admin/'])('GET %s serves the page with its security headers', async (url) => {
      const response = await t.http().get(url).expect(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.headers['content-security-policy']).toBe(CSP);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['referrer-policy']).toBe('same-origin');
      const html = response.text;
      expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
      expect(html).toContain('<meta charset="utf-8">');
      expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html).toContain('<title>Back office</title>');
      expect(html).toContain('<link rel="stylesheet" href="/admin/assets/app.css">');
      expect(html).toContain('<script type="module" src="/admin/assets/main.js"></script>');
      for (const script of scripts.filter((name) => name !== 'main.js')) expect(html).toContain(`<link rel="modulepreload" href="/admin/assets/${script}">`);
      expect(html).toMatch(/<body>\n<noscript>[^<]+<\/noscript>\n<\/body>/);
    });

    it('serves each script of the built app and the stylesheet, with a strong ETag, and 304 on If-None-Match', async () => {
      expect(scripts).toContain('main.js');
      await t.http().get('/admin/assets/metadata.js').expect(404);
      for (const [file, type] of [...scripts.map((name) => [name, 'text/javascript; charset=utf-8']), ['app.css', 'text/css; charset=utf-8']]) {
        const response = await t.http().get(`/admin/assets/${file}`).expect(200);
        expect(response.headers['content-type']).toBe(type);
        expect(response.headers['cache-control']).toBe('no-cache');
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        const etag = response.headers.etag;
        expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
        const again = await t.http().get(`/admin/assets/${file}`).set('If-None-Match', `"other", ${etag}`).expect(304);
        expect(again.headers.etag).toBe(etag);
        expect(again.text ?? '').toBe('');
        await t.http().get(`/admin/assets/${file}`).set('If-None-Match', '"other"').expect(200);
      }
      const css = await t.http().get('/admin/assets/app.css');
      expect(css.text).toBe(readFileSync(fileURLToPath(new URL('../../../src/back-office/app/app.css', import.meta.url)), 'utf8'));
    });

    it.each([
      '/admin/assets/nothing.js',
      '/admin/assets/..%2Fpackage.json',
      '/admin/assets/%2E%2E%2F%2E%2E%2Fpackage.json',
      '/admin/assets/app.ts',
      '/admin/assets/metadata.d.ts',
    ])('GET %s is a 404 in the error shape, reading no file', async (url) => {
      const response = await t.http().get(url);
      expectError(response, 404, 'MR_ROUTE_NOT_FOUND');
      expect(response.headers['content-type']).toMatch(/^application\/json/);
    });

    it('GET /admin/metadata answers the title, the API base, the auth header and the resources, not cached', async () => {
      const response = await t.http().get('/admin/metadata').expect(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const metadata = response.body as BackOfficeMetadata;
      expect(metadata).toMatchObject({ title: 'Back office', apiBase: '', auth: { header: 'authorization', scheme: 'Bearer' } });
      expect(metadata.resources.map((candidate) => candidate.name)).toEqual(['Person', 'Project']);
    });

    it('describes a resource: paths, id and label fields, routes, and every field a client sees or sends', async () => {
      const metadata = (await t.http().get('/admin/metadata')).body as BackOfficeMetadata;
      const person = resource(metadata, 'Person');
      expect(person).toMatchObject({ name: 'Person', path: 'person', plural: 'people', idField: '_id', labelField: 'name', requireIfMatch: false });
      expect(person.routes).toEqual(['findOne', 'create', 'update', 'patch', 'delete', 'search', 'searchPost']);
      expect(person.fields.map((candidate) => candidate.path)).toEqual([
        '_id',
        'name',
        'nickname',
        'password',
        'score',
        'role',
        'active',
        'birth',
        'address',
        'tags',
        'extra',
        'avatar',
        'createdAt',
        'updatedAt',
      ]);
      expect(person.fields[0]).toEqual({ path: '_id', type: 'objectId', readOnly: true });
      expect(field(person.fields, 'name')).toEqual({ path: 'name', type: 'string', required: true, minLength: 2, maxLength: 80 });
      expect(field(person.fields, 'password')).toEqual({ path: 'password', type: 'string', writeOnly: true });
      expect(field(person.fields, 'score')).toEqual({ path: 'score', type: 'number', min: 0, max: 100, readOnly: true });
      expect(field(person.fields, 'role')).toEqual({ path: 'role', type: 'string', enum: ['admin', 'editor', 'viewer'] });
      expect(field(person.fields, 'active')).toEqual({ path: 'active', type: 'boolean' });
      expect(field(person.fields, 'birth')).toEqual({ path: 'birth', type: 'date' });
      expect(field(person.fields, 'address')).toEqual({
        path: 'address',
        type: 'object',
        fields: [
          { path: 'address.city', type: 'string', required: true },
          { path: 'address.zip', type: 'string' },
        ],
      });
      expect(field(person.fields, 'tags')).toEqual({ path: 'tags', type: 'array', items: 'string' });
      expect(field(person.fields, 'extra')).toEqual({ path: 'extra', type: 'json' });
      expect(field(person.fields, 'avatar')).toEqual({
        path: 'avatar',
        type: 'file',
        accept: ['image/png', 'image/jpeg'],
        maxSize: 1024 ** 2,
        variants: true,
        routes: ['upload', 'download', 'deleteFile'],
      });
      expect(field(person.fields, 'createdAt')).toEqual({ path: 'createdAt', type: 'date', readOnly: true });
    });

    it('leaves hidden fields and the version key out of the whole document', async () => {
      const text = (await t.http().get('/admin/metadata')).text;
      for (const hidden of ['secretNote', 'apiToken', 'hiddenCode', '__v']) expect(text).not.toContain(hidden);
    });

    it('describes references, arrays of references, files and galleries with their enabled routes, and the references to a resource', async () => {
      const metadata = (await t.http().get('/admin/metadata')).body as BackOfficeMetadata;
      const project = resource(metadata, 'Project');
      expect(project).toMatchObject({ labelField: 'title', idField: '_id' });
      // delete is disabled; findOne is the user's override, on the generated path.
      expect(project.routes).toEqual(['findOne', 'create', 'update', 'patch', 'search', 'searchPost']);
      // In the order the class declares them, though the schema moved `owner` (a Types.ObjectId) last.
      expect(project.fields.map((candidate) => candidate.path)).toEqual(['_id', 'title', 'owner', 'members', 'tasks', 'externalId', 'photos']);
      expect(field(project.fields, 'owner')).toEqual({ path: 'owner', type: 'reference', required: true, target: 'Person', routes: ['find'] });
      expect(field(project.fields, 'members')).toEqual({ path: 'members', type: 'references', target: 'Person', routes: ['list', 'add', 'remove'] });
      // An array of sub-documents is edited as JSON; its element routes are listed.
      expect(field(project.fields, 'tasks')).toEqual({ path: 'tasks', type: 'json', routes: ['addElement', 'findElement', 'patchElement', 'deleteElement'] });
      expect(field(project.fields, 'externalId')).toEqual({ path: 'externalId', type: 'objectId' });
      expect(field(project.fields, 'photos')).toEqual({
        path: 'photos',
        type: 'files',
        accept: ['image/png', 'application/pdf'],
        maxSize: 5 * 1024 ** 2,
        maxFiles: 100,
        variants: false,
        routes: ['addFile', 'download'],
      });
      expect(resource(metadata, 'Person').referencedBy).toEqual([
        { resource: 'Project', field: 'owner', isArray: false, routes: ['reversePost'] },
        { resource: 'Project', field: 'members', isArray: true, routes: ['reverse', 'reversePost'] },
      ]);
      expect(project.referencedBy).toEqual([]);
    });

    it('names the routes the app serves, and not those it disabled', async () => {
      const metadata = (await t.http().get('/admin/metadata')).body as BackOfficeMetadata;
      const person = await t
        .http()
        .post('/person')
        .send({ name: 'Ada', address: { city: 'London' } })
        .expect(201);
      const project = await t
        .http()
        .post('/project')
        .send({ title: 'Engine', owner: person.body._id, members: [person.body._id] })
        .expect(201);
      await t.http().get(`/project/${project.body._id}`).expect(200);
      await t.http().delete(`/project/${project.body._id}`).expect(405);
      await t.http().get(`/person/${person.body._id}/projects/owner`).expect(405);
      await t.http().post(`/person/${person.body._id}/projects/owner`).send({}).expect(200);
      expect(resource(metadata, 'Project').routes).not.toContain('delete');
    });

    it('is left out of the OpenAPI document', () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
      expect(Object.keys(document.paths).filter((path) => path.startsWith('/admin'))).toEqual([]);
    });
  });

  describe('BackOfficeModule under a global prefix, with its options', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await boot({ path: '/tools/data/', title: 'Data <admin> & "co"', auth: { header: 'X-Api-Key' }, guards: [AdminGuard] }, '/api/');
    });
    afterAll(() => t.close());

    it('serves the page under the prefix, its links under it, its title escaped', async () => {
      for (const url of ['/api/tools/data', '/api/tools/data/']) {
        const response = await t.http().get(url);
        expect({ url, status: response.status }).toEqual({ url, status: 200 });
        const html = response.text;
        expect(html).toContain('<title>Data &#60;admin&#62; &#38; &#34;co&#34;</title>');
        expect(html).toContain('<link rel="stylesheet" href="/api/tools/data/assets/app.css">');
        expect(html).toContain('<script type="module" src="/api/tools/data/assets/main.js"></script>');
      }
      await t.http().get('/api/tools/data/assets/app.css').expect(200);
      await t.http().get('/admin').expect(404);
    });

    it('guards the metadata only: 401 in the error shape without the header, the page and files still served', async () => {
      expectError(await t.http().get('/api/tools/data/metadata'), 401, 'MR_UNAUTHORIZED');
      await t.http().get('/api/tools/data').expect(200);
      await t.http().get('/api/tools/data/assets/app.css').expect(200);
      const metadata = (await t.http().get('/api/tools/data/metadata').set('x-admin', 'yes').expect(200)).body as BackOfficeMetadata;
      expect(metadata).toMatchObject({ title: 'Data <admin> & "co"', apiBase: '/api', auth: { header: 'x-api-key' } });
      expect(metadata.auth).toEqual({ header: 'x-api-key' });
    });

    it('answers 403 MR_FORBIDDEN for a guard that returns false', async () => {
      const closed = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project] }),
        imports: [BackOfficeModule.forRoot({ guards: [{ canActivate: () => false }] })],
      });
      try {
        expectError(await closed.http().get('/admin/metadata'), 403, 'MR_FORBIDDEN');
        await closed.http().get('/admin').expect(200);
      } finally {
        await closed.close();
      }
    });
  });

  describe('BackOfficeModule.forRootAsync: title and auth computed, path and guards given synchronously', () => {
    @Injectable()
    class AdminConfig {
      readonly title = 'Computed <admin>';
      readonly header = 'X-Api-Key';
    }

    @Module({ providers: [AdminConfig], exports: [AdminConfig] })
    class AdminConfigModule {}

    class AdminSettingsFactory implements BackOfficeSettingsFactory {
      async createBackOfficeSettings(): Promise<BackOfficeSettings> {
        return { title: 'From a class', auth: { header: 'x-token', scheme: 'Token' } };
      }
    }

    it('useFactory with inject of a provider of an imported module: the page and the metadata show its title and send its auth header', async () => {
      const t = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project] }),
        imports: [
          BackOfficeModule.forRootAsync({
            path: '/tools/data',
            guards: [AdminGuard],
            imports: [AdminConfigModule],
            inject: [AdminConfig],
            useFactory: (config: AdminConfig) => ({ title: config.title, auth: { header: config.header } }),
          }),
        ],
      });
      try {
        const html = (await t.http().get('/tools/data').expect(200)).text;
        expect(html).toContain('<title>Computed &#60;admin&#62;</title>');
        expect(html).toContain('<meta name="model-routes-auth-header" content="x-api-key">');
        expect(html).not.toContain('model-routes-auth-scheme');
        expectError(await t.http().get('/tools/data/metadata'), 401, 'MR_UNAUTHORIZED');
        const metadata = (await t.http().get('/tools/data/metadata').set('x-admin', 'yes').expect(200)).body as BackOfficeMetadata;
        expect(metadata).toMatchObject({ title: 'Computed <admin>', apiBase: '' });
        expect(metadata.auth).toEqual({ header: 'x-api-key' });
        expect(metadata.resources.map((candidate) => candidate.name)).toEqual(['Person', 'Project']);
        await t.http().get('/admin').expect(404);
      } finally {
        await t.close();
      }
    });

    it('useClass: a class implementing createBackOfficeSettings()', async () => {
      const t = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project] }),
        imports: [BackOfficeModule.forRootAsync({ useClass: AdminSettingsFactory })],
      });
      try {
        const html = (await t.http().get('/admin').expect(200)).text;
        expect(html).toContain('<title>From a class</title>');
        expect(html).toContain('<meta name="model-routes-auth-header" content="x-token">');
        expect(html).toContain('<meta name="model-routes-auth-scheme" content="Token">');
        const metadata = (await t.http().get('/admin/metadata').expect(200)).body as BackOfficeMetadata;
        expect(metadata).toMatchObject({ title: 'From a class', auth: { header: 'x-token', scheme: 'Token' } });
      } finally {
        await t.close();
      }
    });

    it.each<[string, BackOfficeSettings]>([
      ['an empty title', { title: ' ' }],
      ['a header that is not an HTTP token', { auth: { header: 'x api key' } }],
    ])('a computed setting it cannot use (%s) fails the boot with the error and message of forRoot()', async (_case, settings) => {
      const message = (() => {
        try {
          BackOfficeModule.forRoot(settings);
        } catch (error) {
          expect(error).toBeInstanceOf(ModelRoutesConfigError);
          return (error as ModelRoutesConfigError).message;
        }
        throw new Error('forRoot() accepted the settings');
      })();
      const booted = bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project] }),
        imports: [BackOfficeModule.forRootAsync({ useFactory: async () => settings })],
      });
      await expect(booted).rejects.toBeInstanceOf(ModelRoutesConfigError);
      await expect(booted).rejects.toMatchObject({ code: 'MR_CONFIG_INVALID_OPTION', message });
    });

    it('refuses a path or guards it cannot use inside forRootAsync(), and a factory that computes them when the app starts', async () => {
      expect(() => BackOfficeModule.forRootAsync({ path: '/admin/:id', useFactory: () => ({}) })).toThrow(
        /^BackOfficeModule\.forRoot\(\): path is "\/admin\/:id".*\[MR_CONFIG_INVALID_OPTION\]$/,
      );
      expect(() => BackOfficeModule.forRootAsync({ guards: ['admin' as never], useFactory: () => ({}) })).toThrow(/guards must be an array/);
      const booted = bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Person, Project] }),
        imports: [BackOfficeModule.forRootAsync({ useFactory: () => ({ path: '/tools' }) as BackOfficeSettings })],
      });
      // The whole message, as the anchored pattern it replaces said it.
      await expect(booted).rejects.toThrow(
        new Error(
          "BackOfficeModule.forRoot(): unknown setting 'path'; the settings are title, auth (path and guards are given to forRootAsync() itself). " +
            '[MR_CONFIG_INVALID_OPTION]',
        ),
      );
    });
  });

  // With ignoreTrailingSlash, Fastify's own router serves /admin/ as /admin: the module must not declare it twice.
  const onFastify = testAdapter() === 'fastify' ? it : it.skip;

  describe('BackOfficeModule on Fastify with ignoreTrailingSlash', () => {
    onFastify('serves the page at /admin and /admin/ all the same', async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back-office-trailing-slash') }),
          ModelRoutesModule.forRoot({ resources: [Person, Project] }),
          BackOfficeModule.forRoot(),
        ],
      })
      class TrailingSlashModule {}
      const moduleRef = await Test.createTestingModule({ imports: [TrailingSlashModule] }).compile();
      // Its own adapter, as this router option is the point; the contract check as bootTestApp's.
      const app = moduleRef.createNestApplication(new FastifyAdapter({ routerOptions: { ignoreTrailingSlash: true } }), { logger: false });
      try {
        await initPlatformApp(app);
        const { http } = contractChecked(app);
        for (const url of ['/admin', '/admin/']) expect((await http().get(url)).status).toBe(200);
      } finally {
        await app.close();
      }
    });
  });

  describe('BackOfficeModule configuration errors', () => {
    it.each<[string, BackOfficeOptions, RegExp]>([
      ['a path with a parameter', { path: '/admin/:id' }, /path is "\/admin\/:id"; give a literal path such as '\/admin'/],
      ['an empty path', { path: '/' }, /path is "\/"/],
      ['a path with a dot segment', { path: '/admin/../x' }, /path is/],
      ['an empty title', { title: ' ' }, /title is " "/],
      ['a header that is not an HTTP token', { auth: { header: 'x api key' } }, /auth\.header is "x api key"; give the name of an HTTP header/],
      ['a scheme of two words', { auth: { header: 'authorization', scheme: 'Bearer token' } }, /auth\.scheme is "Bearer token"/],
      ['guards that are not guards', { guards: ['admin' as never] }, /guards must be an array of guard classes or instances/],
      ['an unknown option', { paths: '/admin' } as never, /unknown option 'paths'; the options are path, title, auth, guards/],
    ])('refuses %s', (_case, options, message) => {
      const attempt = () => BackOfficeModule.forRoot(options);
      expect(attempt).toThrow(ModelRoutesConfigError);
      expect(attempt).toThrow(/^BackOfficeModule\.forRoot\(\): /);
      expect(attempt).toThrow(message);
      expect(attempt).toThrow(/\[MR_CONFIG_INVALID_OPTION\]$/);
    });

    it('stops the start of an app without ModelRoutesModule, saying what to import', async () => {
      await expect(bootTestApp(engine, { imports: [BackOfficeModule.forRoot()] })).rejects.toThrow(
        /BackOfficeModule\.forRoot\(\): the app has no ModelRoutesModule.*Import ModelRoutesModule\.forRoot.*\[MR_CONFIG_INVALID_OPTION\]/,
      );
    });
  });
}
