/**
 * Starts FerretDB v1 for `startEmbeddedDatabase()` and for the repo's engine helper
 * (`scripts/mongo-engine.ts`): the backend chosen, the data folder locked, the binary found or
 * built, the server launched. One code path for the library's users, the tests, the sample app and
 * the benchmarks.
 */
import { chooseFerretDbBackend, findOrBuildFerretDb, findPostgresBin } from './choice.js';
import { lockDataDir } from './data-dir-lock.js';
import { startFerretDbOnPostgres, startFerretDbOnSqlite } from './ferretdb.js';
import type { Engine, EngineChoice } from './types.js';

export interface FerretDbStart {
  choice: EngineChoice;
  /** What asked for `choice`, for the messages (`MODEL_ROUTES_ENGINE=auto`, `startEmbeddedDatabase({ backend: 'sqlite' })`). */
  asked: string;
  /** The kept data folder (locked while the engine runs); none for a temporary one. */
  dataDir?: string;
  /** What this process is, for the `DataDirInUseError` of another process on the same folder. */
  owner?: string;
  /** FerretDB's port on 127.0.0.1; default a free one. */
  port?: number;
}

/** FerretDB on the backend `choice` resolves to; `undefined` when there is no binary and no `go` to build one. */
export async function startFerretDb(start: FerretDbStart): Promise<Engine | undefined> {
  // Before a build of FerretDB, so that a backend that cannot run fails at once.
  const { backend, reason } = chooseFerretDbBackend(start.choice, start.asked);
  const release = start.dataDir ? lockDataDir(start.dataDir, start.owner) : undefined;
  let engine: Engine;
  try {
    const binary = findOrBuildFerretDb();
    if (!binary) {
      release?.();
      return undefined;
    }
    const place = { keptDir: start.dataDir, port: start.port };
    engine =
      backend === 'postgresql' ? await startFerretDbOnPostgres(binary, findPostgresBin()!, reason, place) : await startFerretDbOnSqlite(binary, reason, place);
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
  return engine;
}
