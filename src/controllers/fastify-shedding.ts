import type { OnModuleInit } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { Admission } from '../concurrency/admission.js';
import { ROUTE_PLAN, type RoutePlan } from '../call/route-plan.js';
import { mapError } from '../errors/error-response.mapper.js';
import { setFastifyRouteConfig } from '../files/fastify-uploads.js';

/** The key of a generated route's Fastify route config that holds its plan. */
const ADMITTED_PLAN = 'modelRoutesPlan';

/** Marks a generated handler, in Fastify's route config, as a route under the admission limit (Express needs nothing). */
export function markAdmittedRoute(handler: Function, plan: RoutePlan): void {
  setFastifyRouteConfig(handler, ADMITTED_PLAN, plan);
}

interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(body: unknown): unknown;
}

interface FastifyLike {
  addHook(name: 'onRequest', hook: (request: { routeOptions?: { config?: Record<string, unknown> } }, reply: FastifyReplyLike, done: () => void) => void): void;
}

/**
 * On Fastify, refuses a request to one of the registration's generated routes that its admission
 * limit would refuse anyway (no place free, and the queue full or the wait past `maxWait`) in an
 * `onRequest` hook: before its body is read and parsed, and before Nest's router, guards and
 * exception filter, so that a flood of refused requests costs as little as it can. The answer is
 * the one the route would give (503 `MR_OVERLOADED`, `Retry-After`, the one error shape). A request
 * that passes the hook goes on to the entry guard, which admits it or refuses it as before. Express
 * parses a body before any middleware of a module: there the guard refuses it, after its body.
 */
export class FastifyShedding implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly admission: Admission,
    /** The plans of this registration's routes: another registration's routes have their own limit. */
    private readonly plans: ReadonlySet<RoutePlan>,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (adapter?.getType() !== 'fastify' || !this.admission.options) return;
    (adapter.getInstance() as FastifyLike).addHook('onRequest', (request, reply, done) => {
      const plan = request.routeOptions?.config?.[ADMITTED_PLAN] as RoutePlan | undefined;
      const refused = plan && this.plans.has(plan) ? this.admission.refuseEarly(plan) : undefined;
      if (!refused) return done();
      reply
        .code(503)
        .headers(refused.headers ?? {})
        .send(mapError(refused).body);
    });
  }
}

/** The plans of the generated handlers of `controllers` (on their prototypes and those they extend). */
export function routePlansOf(controllers: Function[]): Set<RoutePlan> {
  const plans = new Set<RoutePlan>();
  for (const controller of controllers) {
    for (let prototype = controller.prototype as object | null; prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype)) {
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const value = Object.getOwnPropertyDescriptor(prototype, name)?.value as unknown;
        const plan = typeof value === 'function' ? (Reflect.getMetadata(ROUTE_PLAN, value) as RoutePlan | undefined) : undefined;
        if (plan) plans.add(plan);
      }
    }
  }
  return plans;
}
