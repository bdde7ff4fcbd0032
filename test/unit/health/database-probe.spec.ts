import { Logger } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { ModelRoutesException } from '../../../src/index.js';
import { DatabaseProbe } from '../../../src/health/database-probe.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function databaseProbeSpec(): void {
  // The probe's own logic (the bound, one ping at a time, the messages) on a stand-in connection;
  // test/e2e/health/health.e2e-spec.ts checks it against the real engine, stopped and started again.

  /** A connection whose `ping` this test answers by hand. */
  function connection(readyState = 1) {
    const pings: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
    const db = { command: () => new Promise<void>((resolve, reject) => pings.push({ resolve, reject })) };
    return { pings, connection: { readyState, db } as unknown as Connection };
  }

  async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ModelRoutesException);
    const { code, message } = (error as ModelRoutesException).getResponse() as { code: string; message: string };
    return { code, message };
  }

  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn']));

  describe('DatabaseProbe', () => {
    it('answers ok with the time of the ping when the database answers', async () => {
      const { pings, connection: c } = connection();
      const answer = new DatabaseProbe(c, 1000).ready();
      pings[0]!.resolve();
      expect(await answer).toEqual({ status: 'ok', database: { pingMs: expect.any(Number) } });
    });

    it('answers 503 after the bound when the ping hangs, and shares the ping in flight', async () => {
      const { pings, connection: c } = connection();
      const probe = new DatabaseProbe(c, 50);
      const started = Date.now();
      const [first, second] = await Promise.all([failure(probe.ready()), failure(probe.ready())]);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(first).toEqual({ code: 'MR_DATABASE_UNAVAILABLE', message: 'The database did not answer a ping within 50 ms' });
      expect(second).toEqual(first);
      expect(pings).toHaveLength(1);
      // Once the late answer came, the next request sends a ping of its own.
      pings[0]!.resolve();
      await new Promise((resolve) => setImmediate(resolve));
      const next = probe.ready();
      expect(pings).toHaveLength(2);
      pings[1]!.resolve();
      await expect(next).resolves.toMatchObject({ status: 'ok' });
    });

    it('answers 503 without the driver words when the ping fails', async () => {
      const { pings, connection: c } = connection();
      const answer = new DatabaseProbe(c, 1000).ready();
      pings[0]!.reject(new Error('MongoServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017'));
      expect(await failure(answer)).toEqual({ code: 'MR_DATABASE_UNAVAILABLE', message: 'The database did not answer a ping' });
    });

    it.each([2, 3, 99])('answers 503 without a ping while Mongoose readyState is %d', async (readyState) => {
      const { pings, connection: c } = connection(readyState);
      expect(await failure(new DatabaseProbe(c, 1000).ready())).toEqual({ code: 'MR_DATABASE_UNAVAILABLE', message: 'The database is not connected' });
      expect(pings).toHaveLength(0);
    });
  });
}
