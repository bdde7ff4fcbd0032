import type { INestApplication } from '@nestjs/common';

/** What the sample does to its application before it listens; the tests call it too. */
export function configureSampleApp<T extends INestApplication>(app: T): T {
  // Express announces itself on every response (X-Powered-By: Express), which only helps a scanner
  // pick its exploits. Fastify sends no such header and has no disable(), hence the check.
  const instance = app.getHttpAdapter().getInstance() as { disable?: (setting: string) => unknown };
  if (typeof instance.disable === 'function') instance.disable('x-powered-by');
  return app;
}
