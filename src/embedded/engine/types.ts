/** The engine's types: a leaf module, imported by every other file of `src/embedded/engine/` and by `scripts/mongo-engine.ts`. */
export type EngineKind = 'external' | 'ferretdb' | 'mongodb-memory-server';
export type FerretDbBackend = 'sqlite' | 'postgresql';
/** The values of `MODEL_ROUTES_ENGINE` and of `StartEngineOptions.engine`. */
export type EngineChoice = 'auto' | 'ferretdb-postgresql' | 'ferretdb-sqlite';

export interface Engine {
  kind: EngineKind;
  /** FerretDB only: the backend it runs on. */
  backend?: FerretDbBackend;
  /**
   * FerretDB on PostgreSQL only: the private cluster's URL (FerretDB's database) and the folder of
   * PostgreSQL's server binaries (often `psql`'s too), for tests that look at what FerretDB made in PostgreSQL.
   */
  postgres?: { url: string; bin: string };
  /** Connection string without a database name; pass `dbName` to Mongoose. */
  uri: string;
  /** A line for logs: which engine, where. */
  description: string;
  stop(): Promise<void>;
  /**
   * FerretDB only: stops the server but keeps its port and data, to test outages: with SIGTERM (it
   * drains for about 3 s, as a database shut down by its operator), or, with `crash`, SIGKILL.
   */
  suspend?(options?: { crash?: boolean }): Promise<void>;
  /** FerretDB only: starts a suspended server again, on the same port with the same data. */
  resume?(): Promise<void>;
}

export interface StartEngineOptions {
  log?: (line: string) => void;
  /**
   * The engine's data folder, kept after stop(). Default: a temporary folder, removed on stop().
   * One engine at a time uses it: a second start while the first runs is a `DataDirInUseError`.
   */
  dataDir?: string;
  /** What this process is, for that error's message in another process (`the sample app on http://127.0.0.1:3000`). */
  owner?: string;
  /**
   * Which engine, overriding `MODEL_ROUTES_ENGINE` (default `auto`). `MONGODB_URI`, when set,
   * still wins: check `engine.kind` / `engine.backend` if it matters.
   */
  engine?: EngineChoice;
}
