import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { HealthRegistration } from '../health/health.registration.js';
import { componentName } from './openapi-routes.js';

const decorated = new WeakSet<Function>();

const HEALTH_SCHEMA = { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } };
const READY_SCHEMA = {
  type: 'object',
  required: ['status', 'database'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    database: {
      type: 'object',
      required: ['pingMs'],
      properties: { pingMs: { type: 'integer', minimum: 0, description: 'How long the request waited for the answer to ping' } },
    },
  },
};

/** `health`, `ready`, `catalogReady`: an operationId from a probe's path, unique as the paths are. */
export function healthOperationId(path: string): string {
  return path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word, index) => (index ? word[0]!.toUpperCase() + word.slice(1) : word))
    .join('');
}

/**
 * Documents the routes of `ModelRoutesHealthModule` as they behave, with `@nestjs/swagger`'s public
 * decorators (the module itself does not need `@nestjs/swagger`): tag `Health`, the bodies, and the
 * readiness route's 503. Once per controller, however often it is called.
 */
export function decorateHealthRoutes(registration: HealthRegistration): void {
  const { controller, healthPath, readyPath, readyTimeoutMS, connectionName } = registration;
  if (decorated.has(controller)) return;
  decorated.add(controller);
  ApiTags('Health')(controller);
  const database = connectionName ? `the database of connection '${connectionName}'` : 'the database';
  const routes: Array<[string, MethodDecorator[]]> = [
    [
      'health',
      [
        ApiOperation({ operationId: healthOperationId(healthPath), summary: 'Liveness: the process answers', description: 'Asks nothing of the database.' }),
        ApiResponse({ status: 200, description: 'The process answers', schema: HEALTH_SCHEMA as never }),
      ],
    ],
    [
      'ready',
      [
        ApiOperation({
          operationId: healthOperationId(readyPath),
          summary: `Readiness: ${database} answers ping`,
          description: `Answers within ${readyTimeoutMS} ms: 200 when ${database} answered ping in that time, else 503.`,
        }),
        ApiResponse({ status: 200, description: `${database[0]!.toUpperCase()}${database.slice(1)} answered ping`, schema: READY_SCHEMA as never }),
        ApiResponse({
          status: 503,
          description: 'Error; code: MR_DATABASE_UNAVAILABLE',
          schema: { $ref: `#/components/schemas/${componentName.error}` } as never,
        }),
      ],
    ],
  ];
  for (const [handler, decorators] of routes) {
    const descriptor = Object.getOwnPropertyDescriptor(controller.prototype, handler)!;
    for (const decorate of decorators) decorate(controller.prototype, handler, descriptor);
  }
}
