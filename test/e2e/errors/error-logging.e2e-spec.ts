/**
 * Every 5xx says why in the server's log (issue 23, item 20): a 503 the database causes is logged
 * with its cause, as an unexpected 500 is, while the client gets only the code.
 */
import { ModelRoutesModule } from '../../../src/index.js';
import { Vet } from '../../fixtures/clinic-models.js';
import { bootTestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { RecordingLogger } from '../../support/recording-logger.js';
import { expectError } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function errorLoggingSpec(): void {
  const engine = useEngine();

  it('logs the cause of a 503 MR_DATABASE_UNAVAILABLE, with the request, and tells the client only the code', async () => {
    const logger = new RecordingLogger();
    const { http, connection } = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Vet] }), appOptions: { logger } });
    await http().get(`/vet/${MISSING_ID}`).expect(404);
    expect(logger.errors).toEqual([]);
    // The driver's client closed under the app: what a dropped connection leaves the next request.
    await connection.getClient().close(true);
    const response = await http().get(`/vet/${MISSING_ID}`);
    expectError(response, 503, 'MR_DATABASE_UNAVAILABLE');
    expect(logger.errors).toHaveLength(1);
    expect(logger.errors[0]).toMatch(new RegExp(`^GET /vet/${MISSING_ID} answered 503 MR_DATABASE_UNAVAILABLE: Mongo\\w+Error`));
    expect(response.text).not.toMatch(/Mongo\w+Error/);
  });
}
