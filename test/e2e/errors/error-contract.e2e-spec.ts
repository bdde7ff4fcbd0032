import { BadRequestException, Body, Controller, Get, Param, Post, VersioningType } from '@nestjs/common';
import request from 'supertest';
import { InjectModelRepository, ModelRepository, ModelRoutesModule } from '../../../src/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function errorContractSpec(): void {
  const engine = useEngine();

  describe('with globalErrorFilter: true (the whole app in the one shape)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(engine, { resources: [Entrepreneur, Company], globalErrorFilter: true });
    });
    afterAll(() => t?.close());

    it.each([
      ['POST', '/company', '{"niceName": '],
      ['POST', '/companies', '{bad json}'],
      ['PUT', `/company/${MISSING_ID}`, "{'single': 'quotes'}"],
      ['POST', `/user/${MISSING_ID}/companies/owner`, '[1, 2,]'],
    ])('malformed JSON on %s %s is a 400 MR_INVALID_JSON', async (method, path, raw) => {
      const response = await t.http()[method.toLowerCase() as 'post'](path).set('content-type', 'application/json').send(raw);
      expectError(response, 400, 'MR_INVALID_JSON');
      // Fastify's parser cannot tell malformed JSON from a refused __proto__ key, and says both.
      expect(response.body.message).toMatch(/^The request body is not valid JSON\b/);
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
    });

    it('an oversized body is a 413 MR_PAYLOAD_TOO_LARGE', async () => {
      const response = await t
        .http()
        .post('/company')
        .send({ niceName: 'x'.repeat(200 * 1024) });
      expectError(response, 413, 'MR_PAYLOAD_TOO_LARGE');
      expect(await t.connection.model('Company').countDocuments()).toBe(0);
    });

    it.each([
      ['GET', '/nope'],
      ['GET', `/company/${MISSING_ID}/owner/extra`],
      ['POST', `/companies/${MISSING_ID}`],
    ])('an unknown path, %s %s, is a 404 MR_ROUTE_NOT_FOUND', async (method, path) => {
      const response = await t.http()[method.toLowerCase() as 'get'](path);
      expectError(response, 404, 'MR_ROUTE_NOT_FOUND');
      expect(response.headers).not.toHaveProperty('allow');
    });

    it.each([
      ['GET', '/company', 'POST'],
      ['DELETE', '/companies', 'GET, HEAD, POST'],
      ['POST', `/company/${MISSING_ID}`, 'DELETE, GET, HEAD, PATCH, PUT'],
      ['PUT', `/company/${MISSING_ID}/owner`, 'GET, HEAD'],
    ])('a method the path does not serve, %s %s, is a 405 MR_METHOD_NOT_ALLOWED with Allow: %s', async (method, path, allow) => {
      const response = await t.http()[method.toLowerCase() as 'get'](path);
      expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
      expect(response.headers.allow).toBe(allow);
    });

    it('answers 405 under a global prefix too', async () => {
      const prefixed = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company], globalErrorFilter: true }),
        globalPrefix: 'api',
      });
      try {
        const response = await prefixed.http().delete('/api/companies');
        expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
        expect(response.headers.allow).toBe('GET, HEAD, POST');
        // Nest's router answers only under its prefix; a path outside it never reaches a filter.
        expectError(await prefixed.http().delete('/api/nope'), 404, 'MR_ROUTE_NOT_FOUND');
      } finally {
        await prefixed.close();
      }
    });
  });

  it('a generated route keeps the one shape under a path the app adds (URI versioning), by default', async () => {
    // Regression: the default scope once sent every failure outside the route table's own paths to
    // Nest's filter, the generated controllers' own failures under /v1 included.
    const versioned = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
      configure: (app) => app.enableVersioning({ type: VersioningType.URI, defaultVersion: '1' }),
    });
    try {
      expectError(await request(versioned.app.getHttpServer()).get('/v1/company/not-an-id'), 400, 'MR_INVALID_ID');
      expectError(await request(versioned.app.getHttpServer()).get(`/v1/company/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
      // A failure that only the library's mapper turns into the shape (Mongoose's ValidationError).
      expectError(await request(versioned.app.getHttpServer()).post('/v1/company').send({ employees: 3 }), 400, 'MR_VALIDATION_FAILED');
    } finally {
      await versioned.close();
    }
  });

  describe('by default (globalErrorFilter: false): the host app is left alone', () => {
    @Controller('custom')
    class CustomController {
      constructor(@InjectModelRepository(Company) private readonly companies: ModelRepository) {}

      @Get('fail')
      fail(): never {
        throw new BadRequestException('custom failure');
      }

      @Post('echo')
      echo(@Body() body: unknown) {
        return body;
      }

      /** The repository's errors are HttpExceptions in the one shape: Nest's own filter answers them right. */
      @Get('company/:id')
      company(@Param('id') id: string) {
        return this.companies.getOne(id);
      }
    }

    it.each([undefined, false])(
      "globalErrorFilter: %s leaves the app's own routes to Nest, and keeps the shape on the generated routes",
      async (globalErrorFilter) => {
        const t = await bootTestApp(engine, {
          modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company], globalErrorFilter }),
          controllers: [CustomController],
        });
        try {
          const custom = await t.http().get('/custom/fail');
          expect(custom.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'custom failure' });
          expectError(await t.http().get('/company/nope'), 400, 'MR_INVALID_ID');
          expect((await t.http().get('/nope')).body).not.toHaveProperty('code');
          // Malformed JSON fails before a route is chosen: Nest's answer on the app's own paths...
          const malformed = await t.http().post('/custom/echo').set('Content-Type', 'application/json').send('{"niceName": ');
          expect(malformed.status).toBe(400);
          expect(malformed.body).not.toHaveProperty('code');
          // ...and the one shape on the generated routes' paths, as their OpenAPI document says, 405s included.
          expectError(await t.http().post('/company').set('Content-Type', 'application/json').send('{"niceName": '), 400, 'MR_INVALID_JSON');
          const unserved = await t.http().delete('/companies');
          expectError(unserved, 405, 'MR_METHOD_NOT_ALLOWED');
          expect(unserved.headers.allow).toBe('GET, HEAD, POST');
          // Custom code, without the library's filter: a malformed id is a 400, a missing document a 404, in the one shape.
          expectError(await t.http().get('/custom/company/not-an-id'), 400, 'MR_INVALID_ID');
          expectError(await t.http().get(`/custom/company/${MISSING_ID}`), 404, 'MR_NOT_FOUND');
        } finally {
          await t.close();
        }
      },
    );
  });
}
