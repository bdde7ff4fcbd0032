import type { EmbeddedDatabaseBackendName } from './embedded-database.options.js';

/**
 * A running embedded database (FerretDB v1, MongoDB's wire protocol), or the external database
 * named by `uri` when one was given. Also the injection token `EmbeddedDatabaseModule` provides it by.
 *
 * @example
 * MongooseModule.forRootAsync({ inject: [EmbeddedDatabase], useFactory: (db: EmbeddedDatabase) => ({ uri: db.uri, dbName: 'app' }) })
 *
 * @publicApi
 */
export class EmbeddedDatabase {
  private stopping?: Promise<void>;

  /** @internal Made by `startEmbeddedDatabase()`. */
  constructor(
    /** The connection string, without a database name (`mongodb://127.0.0.1:<port>/`): give Mongoose a `dbName`. */
    readonly uri: string,
    /** One line for logs: which engine, which backend, where, its data folder. */
    readonly description: string,
    /** FerretDB's backend; `undefined` for an external database (the `uri` option). */
    readonly backend: EmbeddedDatabaseBackendName | undefined,
    /** The folder of its data (absolute); `undefined` for a temporary folder or an external database. */
    readonly dataDir: string | undefined,
    private readonly stopEngine: () => Promise<void>,
  ) {}

  /** Whether an engine was started (`false`: the `uri` option named an external database). */
  get embedded(): boolean {
    return this.backend !== undefined;
  }

  /**
   * Stops the engine (its data stays in `dataDir`; a temporary folder is removed). Close the
   * connections to it first. Calling it again waits for the same stop.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopEngine();
    return this.stopping;
  }
}
