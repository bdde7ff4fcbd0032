import { createControllers } from '../../../src/factories/controllers.factory.js';
import { createResourceDefinitions } from '../../../src/factories/resource-definition.factory.js';
import { createRouteTable } from '../../../src/factories/route-table.factory.js';
import { SerializationInterceptor } from '../../../src/serialization/serialization.interceptor.js';
import { Agency, Agent, Plain } from '../../fixtures/serialization-models.js';

/** Where `@UseInterceptors()` records a handler's interceptors (Nest's INTERCEPTORS_METADATA, not exported publicly). */
const INTERCEPTORS = '__interceptors__';

describe('serializeRoute, through the controller factories', () => {
  const definitions = createResourceDefinitions({ resources: [Agent, Agency, Plain] });
  const table = createRouteTable(definitions);
  const controllers = new Map(createControllers(definitions, table).map((controller) => [controller.name, controller]));
  const interceptorsOf = (route: (typeof table)[number]) =>
    (Reflect.getMetadata(INTERCEPTORS, controllers.get(route.controller)!.prototype[route.handler]) ?? []) as unknown[];

  it('puts the interceptor on every route that answers documents of a class with group-only fields or transforms', () => {
    const serialized = table.filter((route) => route.resource !== 'Plain');
    expect(serialized.length).toBeGreaterThan(10);
    for (const route of serialized) expect([route.handler, interceptorsOf(route)]).toEqual([route.handler, expect.arrayContaining([SerializationInterceptor])]);
  });

  it('adds nothing to the routes of a class without class-transformer decorators', () => {
    const plain = table.filter((route) => route.resource === 'Plain');
    expect(plain.length).toBe(7);
    for (const route of plain) expect(interceptorsOf(route)).not.toContain(SerializationInterceptor);
  });
});
