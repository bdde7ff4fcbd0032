/**
 * Finds a MongoDB-compatible server for the tests, the sample app and the benchmarks.
 *
 * Resolution order (DESIGN.md section 6):
 * 1. `MONGODB_URI`, when set: used as is (it wins over everything below, even `options.engine`).
 * 2. FerretDB v1: a cached binary, built on first use from the Go module proxy by
 *    `scripts/build-ferretdb.sh` when `go` is on the PATH. Its backend is chosen by
 *    `options.engine`, else `MODEL_ROUTES_ENGINE=auto|ferretdb-postgresql|ferretdb-sqlite`:
 *    `auto` (the default) takes PostgreSQL when its server binaries (`initdb`, `postgres`) are on
 *    the PATH or under /usr/lib/postgresql/<version>/bin, else the embedded SQLite backend.
 *    For PostgreSQL, each engine runs a private cluster on a free port of 127.0.0.1, copied from a
 *    template cluster that is initdb'd once per PostgreSQL version into the cache.
 * 3. `mongodb-memory-server` (a real `mongod`), when that package is installed (`auto` only).
 *
 * Every server is started as a child of a tiny `sh` watchdog that kills it as soon as this
 * process's pipe to it closes, so no server outlives the process that started it, even when that
 * process is killed; a temporary PostgreSQL cluster is removed by its watchdog too.
 */
import { lockDataDir } from './data-dir-lock.js';
import { chooseFerretDbBackend, engineChoice, findOrBuildFerretDb, findPostgresBin } from './engine/choice.js';
import { startFerretDbOnPostgres, startFerretDbOnSqlite } from './engine/ferretdb.js';
import { startMemoryServer } from './engine/memory-server.js';
import type { Engine, StartEngineOptions } from './engine/types.js';

// The public surface: importers (test/support, bench, sample-app, test/unit) import from here.
export { cacheDir, chooseFerretDbBackend, engineChoice, findPostgresBin } from './engine/choice.js';
export { freePorts } from './engine/ports.js';
export type { Engine, EngineChoice, EngineKind, FerretDbBackend, StartEngineOptions } from './engine/types.js';

export async function startEngine(options: StartEngineOptions = {}): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const release = options.dataDir && !process.env.MONGODB_URI ? lockDataDir(options.dataDir, options.owner) : undefined;
  let engine: Engine;
  try {
    engine = await resolveEngine(options);
  } catch (error) {
    release?.();
    throw error;
  }
  if (release) {
    const stop = engine.stop.bind(engine);
    engine.stop = async () => {
      await stop();
      release();
    };
  }
  log(`[engine] ${engine.description}`);
  return engine;
}

async function resolveEngine(options: StartEngineOptions): Promise<Engine> {
  const external = process.env.MONGODB_URI;
  if (external) {
    return {
      kind: 'external',
      uri: external,
      description: `MONGODB_URI (${redact(external)})`,
      stop: async () => undefined,
    };
  }
  const choice = engineChoice(options.engine);
  const asked = options.engine ? `startEngine({ engine: '${choice}' })` : `MODEL_ROUTES_ENGINE=${choice}`;
  // Before a build of FerretDB, so that a backend that cannot run fails at once.
  const { backend, reason } = chooseFerretDbBackend(choice, asked);
  const binary = findOrBuildFerretDb();
  if (binary) {
    return backend === 'postgresql'
      ? startFerretDbOnPostgres(binary, findPostgresBin()!, reason, options.dataDir)
      : startFerretDbOnSqlite(binary, reason, options.dataDir);
  }
  if (choice !== 'auto') {
    throw new Error(`${asked}: no FerretDB binary, and no 'go' on the PATH to build one`);
  }
  const memoryServer = await startMemoryServer();
  if (memoryServer) return memoryServer;
  throw new Error(
    'No MongoDB-compatible engine: set MONGODB_URI, install Go (FerretDB is built on first use), ' +
      'or `npm install mongodb-memory-server` on a machine that can download mongod.',
  );
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]+@/, '//***@');
}
