/**
 * FerretDB's backend: `postgresql` (its main one; needs PostgreSQL's server binaries, `initdb` and
 * `postgres`, on the PATH or in /usr/lib/postgresql/<version>/bin) or `sqlite` (no server at all).
 *
 * @publicApi
 */
export type EmbeddedDatabaseBackendName = 'postgresql' | 'sqlite';

/**
 * Options of `startEmbeddedDatabase()` and `EmbeddedDatabaseModule.forRoot()`.
 *
 * @publicApi
 */
export interface EmbeddedDatabaseOptions {
  /**
   * The folder of the data, created if missing, kept after stop() and found again at the next
   * start (relative paths are resolved against the working directory). One running engine at a
   * time per folder: a second start on it is a `DataDirInUseError`. Default: a temporary folder,
   * removed on stop().
   */
  dataDir?: string;
  /** `auto` (the default): PostgreSQL when its server binaries are found, else SQLite. */
  backend?: 'auto' | EmbeddedDatabaseBackendName;
  /** FerretDB's port on 127.0.0.1. Default: a free port. */
  port?: number;
  /**
   * Start even when `NODE_ENV=production`. The embedded engine is for development and tests
   * (docs/embedded-database.md says what it does not guarantee), so that is refused by default.
   */
  allowInProduction?: boolean;
  /**
   * A database to use instead, such as `process.env.MONGODB_URI`: when set, nothing is started
   * and this URI is handed on as is (and so production, with its own database, needs no other code).
   */
  uri?: string;
  /** Where the start-up line goes. Default: Nest's `Logger` (context `EmbeddedDatabase`); `false` for none. */
  log?: ((line: string) => void) | false;
  /** What this process is, named in the error another process gets when it starts on the same `dataDir`. */
  owner?: string;
}
