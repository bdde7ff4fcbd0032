import type { OpenAPIObject } from '@nestjs/swagger';
import { OpenApiContract } from '../../support/openapi-contract.js';

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

  it('refuses an undocumented status or route', () => {
    expect(() => contract.check('GET', '/thing/{id}', 404, {})).toThrow('not documented');
    expect(() => contract.check('POST', '/thing/{id}', 200, {})).toThrow('not documented');
  });
});
