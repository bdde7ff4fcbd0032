/**
 * Methods, media types and the one vocabulary of errors (issue 9, items 9 and 10, finding A6):
 * PATCH merges as PUT does; a method a path does not serve is a 405 with `Allow`; a body that
 * is not JSON is a 415; a global ValidationPipe's refusal is MR_VALIDATION_FAILED with paths.
 */
import { Body, Controller, Post, ValidationPipe } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { IsInt, IsString, Min, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { GeneratedController, ModelRoutesModule } from '../../../src/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp, testAdapter, type TestApp } from '../../support/app.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function methodsAndMediaSpec(): void {
  class Address {
    @IsString() city!: string;
  }

  class Transfer {
    @IsInt() @Min(1) employees!: number;
    @ValidateNested() @Type(() => Address) address!: Address;
  }

  /** A custom endpoint with a DTO, validated by the app's global ValidationPipe. */
  @Controller()
  class CompanyController extends GeneratedController(Company) {
    @Post('transfers')
    transfer(@Body() body: Transfer) {
      return { accepted: body.employees };
    }
  }

  const engine = useEngine();
  let t: TestApp;
  let company: string;

  beforeAll(async () => {
    t = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company], controllers: [CompanyController] }),
      providers: [{ provide: APP_PIPE, useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }) }],
    });
    company = (await t.http().post('/company').send({ niceName: 'Acme', employees: 3, location: 'Paris' }).expect(201)).body._id;
  });
  afterAll(() => t?.close());

  describe('PATCH changes only the fields sent', () => {
    it('changes only the fields sent, as PUT does', async () => {
      const response = await t.http().patch(`/company/${company}`).send({ employees: 4 }).expect(200);
      expect(response.body).toMatchObject({ niceName: 'Acme', employees: 4, location: 'Paris' });
    });
  });

  describe('a method the path does not serve is a 405 with Allow', () => {
    it.each<['post' | 'put' | 'delete' | 'get', () => string, string]>([
      ['post', () => `/company/${company}`, 'DELETE, GET, HEAD, PATCH, PUT'],
      ['delete', () => '/companies', 'GET, HEAD, POST'],
      ['put', () => '/users', 'GET, HEAD, POST'],
      ['get', () => '/company', 'POST'],
      ['delete', () => `/company/${company}/owner`, 'GET, HEAD'],
      ['put', () => `/user/${company}/companies/owner`, 'GET, HEAD, POST'],
    ])('%s %p', async (method, path, allow) => {
      const response = await expectRefusedUnchanged(t.connection, () => t.http()[method](path()), { status: 405, code: 'MR_METHOD_NOT_ALLOWED' });
      expect(response.headers.allow).toBe(allow);
    });

    it('does not answer 405 where a generated :param route serves the path (GET /company/transfers is GET one)', async () => {
      const response = await t.http().get('/company/transfers');
      // GET /company/transfers is GET /company/:company_id with the id "transfers".
      expectError(response, 400, 'MR_INVALID_ID');
    });

    it("leaves a path no route has to Nest's own 404 (globalErrorFilter: true shapes it, see error-contract)", async () => {
      expectNoRoute(await t.http().get('/nothing/here'));
      expectNoRoute(await t.http().get(`/company/${company}/owner/extra`));
    });
  });

  describe('a body that is not JSON is a 415', () => {
    it.each([
      ['text/plain', '{"query":{"niceName":"Nope"}}'],
      ['application/x-www-form-urlencoded', 'query[niceName]=Nope'],
      ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="query"\r\n\r\n{}\r\n--x--\r\n'],
    ])('POST /companies with %s', async (type, text) => {
      const response = await t.http().post('/companies').set('content-type', type).send(text);
      expectError(response, 415, 'MR_UNSUPPORTED_MEDIA_TYPE');
    });

    it('POST /companies with a body and no content type', async () => {
      const response = await t
        .http()
        .post('/companies')
        .serialize((value: unknown) => value as string)
        .send('{"query":{}}')
        .unset('content-type');
      expectError(response, 415, 'MR_UNSUPPORTED_MEDIA_TYPE');
    });

    it.each<['post' | 'put' | 'patch', () => string]>([
      ['post', () => '/company'],
      ['put', () => `/company/${company}`],
      ['patch', () => `/company/${company}`],
      ['post', () => `/user/${'0'.repeat(24)}/companies/owner`],
    ])('%s %p with text/plain, changing nothing', async (method, path) => {
      await expectRefusedUnchanged(t.connection, () => t.http()[method](path()).set('content-type', 'text/plain').send('niceName=x'), {
        status: 415,
        code: 'MR_UNSUPPORTED_MEDIA_TYPE',
      });
    });

    it('a POST search without a body is a search of everything', async () => {
      const response = await t.http().post('/companies').expect(200);
      expect(response.body.status.match_count).toBeGreaterThanOrEqual(1);
    });

    it('takes application/json with parameters', async () => {
      await t.http().post('/companies').set('content-type', 'application/json; charset=utf-8').send('{"query":{}}').expect(200);
    });

    it('refuses other JSON types, which the JSON body parser leaves unread', async () => {
      const response = await t.http().patch(`/company/${company}`).set('content-type', 'application/merge-patch+json').send('{"employees":5}');
      expectError(response, 415, 'MR_UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('one vocabulary of errors, whoever refuses the request', () => {
    it('a global ValidationPipe refusal is MR_VALIDATION_FAILED, one detail per constraint, at the dotted path', async () => {
      const response = await t
        .http()
        .post('/company/transfers')
        .send({ employees: 0, address: { city: 5 }, extra: true });
      expectError(response, 400, 'MR_VALIDATION_FAILED');
      expect(response.body.details).toEqual(
        expect.arrayContaining([
          { path: 'employees', message: expect.stringContaining('employees') },
          { path: 'address.city', message: expect.stringContaining('address.city') },
          { path: 'extra', message: expect.stringContaining('extra') },
        ]),
      );
    });

    it('the generated routes keep working under the global ValidationPipe', async () => {
      await t.http().post('/company').send({ niceName: 'Globex' }).expect(201);
      await t.http().get('/companies?niceName=Globex').expect(200);
    });

    it.each<[string, () => PromiseLike<Parameters<typeof expectError>[0]>, string, string]>([
      ['a body value that cannot be cast', () => t.http().post('/company').send({ niceName: 'X', employees: 'many' }), 'MR_VALIDATION_FAILED', 'employees'],
      ['a required field left out', () => t.http().post('/company').send({ employees: 1 }), 'MR_VALIDATION_FAILED', 'niceName'],
      [
        'a search value that cannot be cast (POST)',
        () =>
          t
            .http()
            .post('/companies')
            .send({ query: { $or: [{ employees: { $gte: 'many' } }] } }),
        'MR_INVALID_VALUE',
        'query.$or.0.employees.$gte',
      ],
      ['a search value that cannot be cast (GET)', () => t.http().get('/companies?employees[gte]=many'), 'MR_INVALID_VALUE', 'query.employees.$gte'],
      ['an unknown field in a search (GET)', () => t.http().get('/companies?nope=1'), 'MR_INVALID_QUERY', 'query.nope'],
      [
        'an unknown field in a search (POST)',
        () =>
          t
            .http()
            .post('/companies')
            .send({ query: { nope: 1 } }),
        'MR_INVALID_QUERY',
        'query.nope',
      ],
      ['an unknown field in a body', () => t.http().post('/company').send({ niceName: 'X', nope: 1 }), 'MR_INVALID_BODY', 'nope'],
    ])('%s: one code, and the path of the value in the request', async (_label, send, code, path) => {
      const response = await send();
      expectError(response, 400, code);
      expect(response.body.details[0].path).toBe(path);
    });
  });

  describe('a bodiless DELETE sent with Content-Type: application/json', () => {
    it(`${testAdapter() === 'fastify' ? "is refused by Fastify's parser: 400 MR_INVALID_BODY, nothing deleted" : 'deletes on Express'}`, async () => {
      const doomed = (await t.http().post('/company').send({ niceName: 'Doomed' }).expect(201)).body._id;
      const response = await t.http().delete(`/company/${doomed}`).set('Content-Type', 'application/json');
      const exists = async () => (await t.connection.model('Company').countDocuments({ _id: doomed })) === 1;
      if (testAdapter() === 'fastify') {
        expectError(response, 400, 'MR_INVALID_BODY');
        expect(await exists()).toBe(true);
      } else {
        expect(response.status).toBe(200);
        expect(await exists()).toBe(false);
      }
    });
  });
}
