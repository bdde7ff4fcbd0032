import type { OpenAPIObject } from '@nestjs/swagger';
import { ContractWatcher, OpenApiContract } from '../../support/openapi-contract.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function openapiContractSpec(): void {
  // The contract checker itself must be able to fail, or the contract test proves nothing.
  const document = {
    openapi: '3.0.0',
    info: { title: 't', version: '1' },
    paths: {
      '/thing/{id}': {
        get: {
          responses: {
            '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          },
        },
        delete: {
          responses: {
            '404': { description: 'missing', content: { 'application/json': { schema: { type: 'object', required: ['code'] } } } },
            '4XX': { description: 'a hook refused', content: { 'application/json': { schema: { type: 'object', required: ['message'] } } } },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, note: { type: 'string', nullable: true } } },
      },
    },
  } as unknown as OpenAPIObject;

  describe('OpenApiContract', () => {
    const contract = new OpenApiContract(document);

    it('accepts a body that matches, null included where nullable', () => {
      expect(() => contract.check('GET', '/thing/{id}', 200, { name: 'a', note: null })).not.toThrow();
    });

    it.each([
      [{ name: 1 }, 'must be string'],
      [{}, "must have required property 'name'"],
      [{ name: 'a', note: 3 }, 'must be string'],
    ])('refuses %j', (body, message) => {
      expect(() => contract.check('GET', '/thing/{id}', 200, body)).toThrow(message);
    });

    it("reads a range (4XX) for a status of its hundred the route lists no entry for, with the range's schema; an own entry wins; no range, no match", () => {
      expect(() => contract.check('DELETE', '/thing/{id}', 409, { message: 'Locked' })).not.toThrow();
      expect(() => contract.check('DELETE', '/thing/{id}', 409, { code: 'x' })).toThrow("must have required property 'message'");
      expect(() => contract.check('DELETE', '/thing/{id}', 404, { message: 'x' })).toThrow("must have required property 'code'");
      expect(() => contract.check('DELETE', '/thing/{id}', 500, {})).toThrow('not documented');
    });

    it('refuses an undocumented status or route', () => {
      expect(() => contract.check('GET', '/thing/{id}', 404, {})).toThrow('not documented');
      expect(() => contract.check('POST', '/thing/{id}', 200, {})).toThrow('not documented');
    });
  });

  describe('ContractWatcher', () => {
    const routes = [{ method: 'GET', path: '/thing/:id' }];

    it('throws for the response of a generated route that does not match, and keeps the list', () => {
      const watcher = new ContractWatcher(new OpenApiContract(document), routes);
      expect(() => watcher.check('get', '/thing/1?x=y', 200, { name: 1 })).toThrow(
        'The response to GET /thing/1?x=y breaks the OpenAPI contract: GET /thing/{id} 200: the body does not match',
      );
      expect(watcher.violations).toHaveLength(1);
    });

    it('leaves alone the routes it was not given and the statuses of user code', () => {
      const watcher = new ContractWatcher(new OpenApiContract(document), routes);
      expect(() => watcher.check('get', '/other/1', 200, {})).not.toThrow();
      expect(() => watcher.check('post', '/thing/1', 200, {})).not.toThrow();
      expect(() => watcher.check('get', '/thing/1', 403, {})).not.toThrow();
      expect(watcher.violations).toEqual([]);
    });

    it("leaves a custom route to its user, even where a generated route's pattern fits too", () => {
      const watcher = new ContractWatcher(new OpenApiContract(document), [{ method: 'GET', path: '/thing/stats', action: 'custom' }, ...routes]);
      expect(() => watcher.check('get', '/thing/stats', 200, { count: 3 })).not.toThrow();
      expect(() => watcher.check('get', '/thing/1', 200, { count: 3 })).toThrow("must have required property 'name'");
    });

    it('matches the routes under a global prefix, against the prefixed paths of the document', () => {
      const prefixed = { ...document, paths: { '/api/thing/{id}': document.paths['/thing/{id}'] } } as OpenAPIObject;
      const watcher = new ContractWatcher(new OpenApiContract(prefixed), routes, 'api/');
      expect(() => watcher.check('get', '/api/thing/1', 200, { name: 'a' })).not.toThrow();
      expect(() => watcher.check('get', '/api/thing/1', 200, {})).toThrow("must have required property 'name'");
      expect(() => watcher.check('get', '/thing/1', 200, {})).not.toThrow();
    });
  });
}
