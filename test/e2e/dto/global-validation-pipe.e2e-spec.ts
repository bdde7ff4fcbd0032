/**
 * The generated routes in an app with the usual global ValidationPipe: no start-up warnings, and
 * the library's own checks still answer (it checks a body before any pipe runs). Every other
 * end-to-end test runs in this configuration too in CI (MODEL_ROUTES_NEST_VALIDATION=1).
 */
import { ConsoleLogger, ValidationPipe } from '@nestjs/common';
import { ModelRoutesModule } from '../../../src/index.js';
import { Company, Entrepreneur } from '../../fixtures/models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function globalValidationPipeSpec(): void {
  const engine = useEngine();

  /** Keeps what Nest warns about, prints nothing. */
  class RecordingLogger extends ConsoleLogger {
    readonly warnings: string[] = [];

    override warn(message: unknown): void {
      this.warnings.push(String(message));
    }

    override log(): void {}
  }

  it('starts without a warning per handler, and the generated routes keep their own checks', async () => {
    const logger = new RecordingLogger();
    const { http } = await bootTestApp(engine, {
      modelRoutes: ModelRoutesModule.forRoot({ resources: [Entrepreneur, Company] }),
      appOptions: { logger },
      configure: (app) => app.useGlobalPipes(new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true })),
    });
    expect(logger.warnings).toEqual([]);
    const created = (await http().post('/company').send({ niceName: 'Acme', employees: 3 }).expect(201)).body;
    expect((await http().get(`/company/${created._id}`).expect(200)).body).toEqual(created);
    expectError(await http().post('/company').send({ niceName: 'Acme', nope: 1 }), 400, 'MR_INVALID_BODY');
    expect((await http().get('/companies?employees=3').expect(200)).body.status.match_count).toBe(1);
  });
}
