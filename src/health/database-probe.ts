import { Logger } from '@nestjs/common';
import type { Connection } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ReadyBody } from './health-options.interface.js';

/** Mongoose's `readyState` values under which the driver can still reach the server (disconnected, connected). */
const REACHABLE_STATES = new Set([0, 1]);

/**
 * Asks the database for `ping`, and answers within a bound whatever the driver does: a server
 * that is down or stopped would otherwise hold the request for the driver's server selection
 * (30 s by default), and a readiness probe must answer before the orchestrator gives up on it.
 * One ping at a time per connection: while the database does not answer, later requests wait on
 * the ping in flight instead of piling up their own.
 */
export class DatabaseProbe {
  private readonly logger = new Logger('ModelRoutesHealth');
  private inFlight?: Promise<void>;
  private lastFailure?: string;

  constructor(
    private readonly connection: Connection,
    private readonly timeoutMS: number,
  ) {}

  /** `{ status: 'ok', database: { pingMs } }`, or a 503 `MR_DATABASE_UNAVAILABLE` after at most `timeoutMS`. */
  async ready(): Promise<ReadyBody> {
    const started = performance.now();
    const failure = await this.failure();
    if (failure) {
      // Logged when readiness is lost (and when it comes back), not on every probe of an outage.
      if (!this.lastFailure) this.logger.warn(`Not ready: ${failure.logged}`);
      this.lastFailure = failure.logged;
      throw new ModelRoutesException('MR_DATABASE_UNAVAILABLE', failure.message);
    }
    if (this.lastFailure) this.logger.log('Ready: the database answers again');
    this.lastFailure = undefined;
    return { status: 'ok', database: { pingMs: Math.round(performance.now() - started) } };
  }

  /** Why the database is not ready (for the client, and with the driver's words for the log), or `undefined`. */
  private async failure(): Promise<{ message: string; logged: string } | undefined> {
    const db = this.connection.db;
    if (!db || !REACHABLE_STATES.has(this.connection.readyState)) {
      const message = 'The database is not connected';
      return { message, logged: `${message} (Mongoose readyState ${this.connection.readyState})` };
    }
    // Pinged even when Mongoose says disconnected: the driver reconnects by itself, and the ping's
    // server selection makes it check the server now rather than at its next heartbeat.
    const ping = (this.inFlight ??= db.command({ ping: 1 }).then(
      () => {
        this.inFlight = undefined;
      },
      (error: unknown) => {
        this.inFlight = undefined;
        throw error;
      },
    ));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, this.timeoutMS, 'timeout');
    });
    try {
      const outcome = await Promise.race([
        ping.then(
          () => 'ok' as const,
          (error: unknown) => ({ error }),
        ),
        timeout,
      ]);
      if (outcome === 'ok') return undefined;
      if (outcome === 'timeout') {
        const message = `The database did not answer a ping within ${this.timeoutMS} ms`;
        return { message, logged: message };
      }
      const reason = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      return { message: 'The database did not answer a ping', logged: `the ping failed: ${reason}` };
    } finally {
      clearTimeout(timer);
    }
  }
}
