import type { Type } from '@nestjs/common';
import { ROUTE_PLAN, type RoutePlan } from '../../../src/call/route-plan.js';
import { createControllers } from '../../../src/factories/controllers.factory.js';
import type { GeneratedRouteDefinition } from '../../../src/interfaces/route-definition.interface.js';
import { planModelRoutes } from '../../../src/routes/model-routes-plan.js';
import { Shelf, Specimen } from '../../fixtures/field-types-models.js';
import { Appointment, AppointmentController, Pet } from '../../fixtures/subdocument-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function controllersFactorySpec(): void {
  /** The class, written in source, that holds the handlers of each family's routes. */
  const HANDLERS = { resource: 'ResourceHandlers', reference: 'ReferenceHandlers', file: 'FileHandlers', element: 'ElementHandlers' } as const;

  const familyOf = (route: GeneratedRouteDefinition) => (route.reference ? 'reference' : route.file ? 'file' : route.element ? 'element' : 'resource');

  describe('the controllers of the four route families, alike', () => {
    const plan = planModelRoutes({ resources: [Shelf, Specimen, Pet, Appointment], controllers: [AppointmentController] });
    const controllers = new Map(createControllers(plan.definitions, plan.table, plan.userControllers).map((controller) => [controller.name, controller]));
    const generated = plan.table.filter((route): route is GeneratedRouteDefinition => route.action !== 'custom');
    const handlersClassOf = (controller: Type) => Object.getPrototypeOf(controller) as Type;

    it('has routes of every family', () => {
      expect(new Set(generated.map(familyOf))).toEqual(new Set(Object.keys(HANDLERS)));
    });

    it.each(Object.keys(HANDLERS) as Array<keyof typeof HANDLERS>)(
      '%s: each handler is a method of its family handlers class, calling serveRoute with its plan, whose work is the method of its action on the class it ' +
        'extends',
      (family) => {
        for (const route of generated.filter((candidate) => familyOf(candidate) === family)) {
          const controller = controllers.get(route.controller)!;
          const handlers = handlersClassOf(controller);
          const handler = controller.prototype[route.handler] as Function;
          expect([route.controller, handlers.name]).toEqual([route.controller, HANDLERS[family]]);
          // The very method the class defines (in source, not assembled per route).
          expect(Object.getOwnPropertyDescriptor(handlers.prototype, route.handler)?.value).toBe(handler);
          expect(String(handler)).toMatch(
            new RegExp(`^${route.handler}\\(\\.\\.\\.args\\) \\{\\s*return serveRoute\\(this, plans\\.${route.action}, args\\);\\s*\\}$`),
          );
          const work = (Reflect.getMetadata(ROUTE_PLAN, handler) as RoutePlan).work;
          expect([route.handler, work.name]).toEqual([route.handler, route.action]);
          expect(Object.getPrototypeOf(handlers).prototype[route.action]).toBe(work);
        }
      },
    );

    it(
      "patches no prototype: a controller owns its routes' handlers only (your routes' included), in route-table order; the rest (onModuleInit, getters) " +
        'is written in its classes',
      () => {
        for (const controller of controllers.values()) {
          const handlers = plan.table.filter((route) => route.controller === controller.name).map((route) => route.handler);
          expect([controller.name, Object.getOwnPropertyNames(controller.prototype)]).toEqual([controller.name, ['constructor', ...new Set(handlers)]]);
        }
        const file = controllers.get('SpecimenScanFileController')!;
        expect(Object.getOwnPropertyNames(Object.getPrototypeOf(handlersClassOf(file)).prototype)).toContain('onModuleInit');
        const reference = controllers.get('SpecimenShelfReferenceController')!;
        expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(handlersClassOf(reference)).prototype, 'target')?.get).toBeInstanceOf(Function);
      },
    );

    it('gives each controller handler functions of its own (route metadata lives on them)', () => {
      const handlers = generated.map((route) => controllers.get(route.controller)!.prototype[route.handler] as Function);
      expect(new Set(handlers).size).toBe(handlers.length);
    });
  });
}
