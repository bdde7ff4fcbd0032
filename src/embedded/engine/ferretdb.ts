/** FerretDB v1, launched under the watchdog on its SQLite backend or on a private PostgreSQL cluster. */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FERRETDB_VERSION } from './choice.js';
import { canConnect, freePort, freePorts } from './ports.js';
import {
  clusterTmpDir,
  copyCluster,
  ensureTemplate,
  giveTo,
  keptCluster,
  launchPostgres,
  PG_DATABASE,
  PG_USER,
  postgresVersion,
  serverUser,
  type ServerUser,
} from './postgres-cluster.js';
import type { Engine } from './types.js';
import { waitUntil, watch, type Watched } from './watchdog.js';

// ---------------------------------------------------------------------------------------------
// FerretDB on SQLite

/** Where an engine keeps its data and which port FerretDB listens on. */
export interface FerretDbPlace {
  /** The kept data folder; none for a temporary one, removed on stop(). */
  keptDir?: string;
  /** FerretDB's port on 127.0.0.1; default a free one. */
  port?: number;
}

/** FerretDB on its embedded SQLite backend, its data in `keptDir` or in a temporary folder. */
export async function startFerretDbOnSqlite(binary: string, reason: string, place: FerretDbPlace = {}): Promise<Engine> {
  const startedAt = Date.now();
  // Absolute: FerretDB runs in another working directory (the watchdog's).
  const keptDir = place.keptDir === undefined ? undefined : resolve(place.keptDir);
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'model-routes-ferretdb-'));
  const args = ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`];
  const port = place.port ?? (await freePort());
  let stopped = false;
  let server: Watched | undefined = await launchFerretDb(binary, args, port).catch(async (error) => {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    kind: 'ferretdb',
    backend: 'sqlite',
    uri: `mongodb://127.0.0.1:${port}/`,
    description:
      `FerretDB ${FERRETDB_VERSION} (SQLite backend; ${reason}) at mongodb://127.0.0.1:${port}/, data in ${dataDir}, started in ` +
      `${Date.now() - startedAt} ms`,
    async stop() {
      stopped = true;
      await server?.kill();
      server = undefined;
      if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async suspend(options) {
      await server?.kill(options?.crash);
      server = undefined;
    },
    async resume() {
      if (stopped) throw new Error('resume(): the engine was stopped; its data is gone');
      server ??= await launchFerretDb(binary, args, port);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// FerretDB on PostgreSQL

/** FerretDB on a private PostgreSQL cluster: the kept one of `keptDir`, or a temporary copy of the template. */
export async function startFerretDbOnPostgres(binary: string, bin: string, reason: string, place: FerretDbPlace = {}): Promise<Engine> {
  const startedAt = Date.now();
  const keptDir = place.keptDir === undefined ? undefined : resolve(place.keptDir);
  const version = postgresVersion(bin);
  const owner = serverUser();
  const template = ensureTemplate(bin, version, owner);
  const clusterDir = keptDir ? keptCluster(keptDir, version, owner) : undefined;
  for (let attempt = 1; ; attempt++) {
    const [pgPort, port] = await freePorts(2);
    try {
      const ports = { pgPort: pgPort!, port: place.port ?? port! };
      return await launchOnPostgres({ binary, bin, version, reason, owner, template, keptDir, clusterDir, ...ports, startedAt });
    } catch (error) {
      // Another process may take a free port before the server binds it: try other ports (unless FerretDB's was asked for).
      if (attempt >= 3 || !/address already in use/i.test(String(error))) throw error;
    }
  }
}

interface PostgresLaunch {
  binary: string;
  bin: string;
  version: string;
  reason: string;
  owner: ServerUser;
  template: string;
  /** The kept data folder and its cluster (in it, or linked from it); none for a temporary one. */
  keptDir?: string;
  clusterDir?: string;
  pgPort: number;
  port: number;
  startedAt: number;
}

async function launchOnPostgres(launch: PostgresLaunch): Promise<Engine> {
  const { binary, bin, owner, pgPort, port } = launch;
  const kept = launch.clusterDir !== undefined;
  // A temporary engine lives in one folder, `data` (the cluster) and `socket` (its unix socket);
  // a kept one's folder only holds the socket. The watchdog removes the folder once postgres has
  // exited, even when this process was killed.
  const root = mkdtempSync(join(kept ? tmpdir() : clusterTmpDir(), kept ? 'model-routes-pg-socket-' : 'model-routes-pg-'));
  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(root, { recursive: true, force: true });
  };
  try {
    chmodSync(root, 0o700);
    giveTo(owner, root);
    const socketDir = kept ? root : join(root, 'socket');
    if (!kept) {
      mkdirSync(socketDir, { mode: 0o700 });
      giveTo(owner, socketDir);
    }
    const clusterDir = launch.clusterDir ?? join(root, 'data');
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) copyCluster(launch.template, clusterDir, owner);

    const url = `postgres://${PG_USER}@127.0.0.1:${pgPort}/${PG_DATABASE}`;
    const ferretArgs = ['--handler=postgresql', `--postgresql-url=${url}`];
    // FerretDB connects to PostgreSQL on its first request, so both start at the same time.
    const [postgres, ferret] = await Promise.allSettled([
      launchPostgres(bin, clusterDir, socketDir, pgPort, owner, root, !kept),
      launchFerretDb(binary, ferretArgs, port),
    ]);
    if (postgres.status === 'rejected' || ferret.status === 'rejected') {
      await Promise.all([postgres, ferret].map((result) => (result.status === 'fulfilled' ? result.value.kill() : undefined)));
      throw postgres.status === 'rejected' ? postgres.reason : (ferret as PromiseRejectedResult).reason;
    }
    const database = postgres.value;
    let server: Watched | undefined = ferret.value;
    let stopped = false;
    return {
      kind: 'ferretdb',
      backend: 'postgresql',
      postgres: { url, bin },
      uri: `mongodb://127.0.0.1:${port}/`,
      description:
        `FerretDB ${FERRETDB_VERSION} (PostgreSQL ${launch.version} backend; ${launch.reason}) at mongodb://127.0.0.1:${port}/, ` +
        `PostgreSQL at ${url}, ${where(launch.keptDir, clusterDir)}, started in ${Date.now() - launch.startedAt} ms`,
      async stop() {
        stopped = true;
        await Promise.all([server?.kill(), database.kill()]);
        server = undefined;
        cleanUp();
      },
      async suspend(options) {
        await server?.kill(options?.crash);
        server = undefined;
      },
      async resume() {
        if (stopped) throw new Error('resume(): the engine was stopped; its data is gone');
        server ??= await launchFerretDb(binary, ferretArgs, port);
      },
    };
  } catch (error) {
    cleanUp();
    throw error;
  }
}

/** Where the data is, for the description: the kept folder (and its cluster when linked from elsewhere), or a temporary cluster. */
function where(keptDir: string | undefined, clusterDir: string): string {
  if (!keptDir) return `cluster in ${clusterDir} (temporary)`;
  return clusterDir.startsWith(`${keptDir}/`) ? `data in ${keptDir}` : `data in ${keptDir} (its cluster in ${clusterDir}, reachable by PostgreSQL's user)`;
}

/** Runs FerretDB on `port` with `backendArgs` until kill(), or until this process dies. */
async function launchFerretDb(binary: string, backendArgs: string[], port: number): Promise<Watched> {
  const server = watch({
    name: 'ferretdb-watchdog',
    command: binary,
    args: [...backendArgs, `--listen-addr=127.0.0.1:${port}`, '--state-dir=-', '--telemetry=disable', '--debug-addr=-', '--log-level=warn'],
    signal: 'TERM',
  });
  try {
    await waitUntil(server, `FerretDB did not listen on 127.0.0.1:${port}`, () => canConnect(port));
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}
