/**
 * Why `startEmbeddedDatabase()` refused to start: `production` (NODE_ENV=production without
 * `allowInProduction`), `no-engine` (no FerretDB binary and no Go to build one), `invalid-option`
 * (an option it cannot use), `port-in-use` (the asked port is taken).
 *
 * @publicApi
 */
export type EmbeddedDatabaseErrorReason = 'production' | 'no-engine' | 'invalid-option' | 'port-in-use';

/**
 * A start of the embedded database that was refused; the message says why and what to do.
 *
 * @publicApi
 */
export class EmbeddedDatabaseError extends Error {
  override readonly name = 'EmbeddedDatabaseError';

  constructor(
    readonly reason: EmbeddedDatabaseErrorReason,
    message: string,
  ) {
    super(message);
  }
}
