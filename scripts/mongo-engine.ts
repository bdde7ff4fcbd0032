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
 * FerretDB is started by the library's own code (src/embedded/engine/, what `startEmbeddedDatabase()`
 * of `nestjs-model-routes/embedded` runs): this file adds the repo's choices around it (MONGODB_URI,
 * MODEL_ROUTES_ENGINE, mongodb-memory-server).
 *
 * Every server is started as a child of a tiny `sh` watchdog that kills it as soon as this
 * process's pipe to it closes, so no server outlives the process that started it, even when that
 * process is killed; a temporary PostgreSQL cluster is removed by its watchdog too.
 */
import { engineChoice } from '../src/embedded/engine/choice.js';
import { startFerretDb } from '../src/embedded/engine/start-ferretdb.js';
import { startMemoryServer } from './engine/memory-server.js';
import type { Engine, StartEngineOptions } from '../src/embedded/engine/types.js';

// The public surface: importers (test/support, bench, sample-app, test/unit) import from here.
export { cacheDir, chooseFerretDbBackend, engineChoice, findPostgresBin } from '../src/embedded/engine/choice.js';
export { DataDirInUseError } from '../src/embedded/engine/data-dir-lock.js';
export { freePorts } from '../src/embedded/engine/ports.js';
export type { Engine, EngineChoice, EngineKind, FerretDbBackend, StartEngineOptions } from '../src/embedded/engine/types.js';

export async function startEngine(options: StartEngineOptions = {}): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const engine = await resolveEngine(options);
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
  const ferretDb = await startFerretDb({ choice, asked, dataDir: options.dataDir, owner: options.owner });
  if (ferretDb) return ferretDb;
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
