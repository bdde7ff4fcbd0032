import { RouteCallGuard } from '../../../src/controllers/route-call.guard.js';
import { ROUTE_PLAN, type RoutePlan } from '../../../src/call/route-plan.js';
import { createControllers } from '../../../src/factories/controllers.factory.js';
import { createResourceDefinitions } from '../../../src/definitions/resource-definition.factory.js';
import { createRouteTable } from '../../../src/routes/route-table.factory.js';
import { Agency, Agent, Plain } from '../../fixtures/serialization-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function serializationViewsRoutesSpec(): void {
  /** Where `@UseGuards()` records a handler's guards (Nest's GUARDS_METADATA, not exported publicly). */
  const GUARDS = '__guards__';

  describe('serialization views, through the controller factories', () => {
    const definitions = createResourceDefinitions({ resources: [Agent, Agency, Plain] });
    const table = createRouteTable(definitions);
    const controllers = new Map(createControllers(definitions, table).map((controller) => [controller.name, controller]));
    const handlerOf = (route: (typeof table)[number]) => controllers.get(route.controller)!.prototype[route.handler] as Function;
    const planOf = (route: (typeof table)[number]) => Reflect.getMetadata(ROUTE_PLAN, handlerOf(route)) as RoutePlan | undefined;

    it('every generated route has the entry guard, last, and its plan', () => {
      const generated = table.filter((route) => route.action !== 'custom');
      for (const route of generated) {
        expect([route.handler, (Reflect.getMetadata(GUARDS, handlerOf(route)) as unknown[]).at(-1)]).toEqual([route.handler, RouteCallGuard]);
        expect(planOf(route)?.action).toBe(route.action);
      }
    });

    it('gives the views to every route that answers documents of a class with group-only fields or transforms', () => {
      const serialized = table.filter((route) => route.resource !== 'Plain' && route.action !== 'custom');
      expect(serialized.length).toBeGreaterThan(10);
      for (const route of serialized) expect([route.handler, planOf(route)?.views]).toEqual([route.handler, expect.anything()]);
    });

    it('gives none to the routes of a class without class-transformer decorators', () => {
      const plain = table.filter((route) => route.resource === 'Plain');
      expect(plain.length).toBe(7);
      for (const route of plain) expect(planOf(route)?.views).toBeUndefined();
    });
  });
}
