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
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lockDataDir } from './data-dir-lock.js';

export type EngineKind = 'external' | 'ferretdb' | 'mongodb-memory-server';
export type FerretDbBackend = 'sqlite' | 'postgresql';
/** The values of `MODEL_ROUTES_ENGINE` and of `StartEngineOptions.engine`. */
export type EngineChoice = 'auto' | 'ferretdb-postgresql' | 'ferretdb-sqlite';

export interface Engine {
  kind: EngineKind;
  /** FerretDB only: the backend it runs on. */
  backend?: FerretDbBackend;
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

const FERRETDB_VERSION = 'v1.24.2';
const ENGINE_CHOICES: readonly EngineChoice[] = ['auto', 'ferretdb-postgresql', 'ferretdb-sqlite'];
/** The PostgreSQL role and database FerretDB uses in its private cluster. */
const PG_USER = 'ferretdb';
const PG_DATABASE = 'ferretdb';
/** Bump when the template's initdb options change, so old templates are not reused. */
const PG_TEMPLATE_FORMAT = 2;

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

/** `options.engine`, else `MODEL_ROUTES_ENGINE`, else `auto`; anything else is an error. */
export function engineChoice(option?: EngineChoice): EngineChoice {
  const value = option ?? (process.env.MODEL_ROUTES_ENGINE || 'auto');
  if (!(ENGINE_CHOICES as readonly string[]).includes(value)) {
    throw new Error(`MODEL_ROUTES_ENGINE=${value}: expected one of ${ENGINE_CHOICES.join(', ')}`);
  }
  return value as EngineChoice;
}

/**
 * The FerretDB backend a choice resolves to, synchronously (tests may need it when Jest collects
 * them): `ferretdb-postgresql` without PostgreSQL's server binaries is an error.
 */
export function chooseFerretDbBackend(
  choice: EngineChoice = engineChoice(),
  asked = `MODEL_ROUTES_ENGINE=${choice}`,
): { backend: FerretDbBackend; reason: string } {
  if (choice === 'ferretdb-sqlite') return { backend: 'sqlite', reason: asked };
  const bin = findPostgresBin();
  if (choice === 'ferretdb-postgresql') {
    if (!bin) {
      throw new Error(
        `${asked}, but no PostgreSQL server binaries were found (initdb and postgres ` +
          'on the PATH or in /usr/lib/postgresql/<version>/bin): install them (Debian: apt-get install postgresql), ' +
          'or use MODEL_ROUTES_ENGINE=ferretdb-sqlite',
      );
    }
    return { backend: 'postgresql', reason: asked };
  }
  return bin
    ? { backend: 'postgresql', reason: `auto: PostgreSQL server binaries in ${bin}` }
    : { backend: 'sqlite', reason: 'auto: no PostgreSQL server binaries found' };
}

let postgresBin: string | null | undefined;

/** The folder holding PostgreSQL's `initdb` and `postgres`: the PATH first, then Debian's layout. */
export function findPostgresBin(): string | undefined {
  if (postgresBin === undefined) {
    const onPath = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
    let debian: string[] = [];
    try {
      debian = readdirSync('/usr/lib/postgresql')
        .filter((name) => /^\d+(\.\d+)?$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join('/usr/lib/postgresql', version, 'bin'));
    } catch {
      // no Debian-style installation
    }
    postgresBin = [...onPath, ...debian].find((dir) => isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'postgres'))) ?? null;
  }
  return postgresBin ?? undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where the FerretDB binary (and the sample app's data) are kept, outside the repo. */
export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? tmpdir(), '.cache');
  return process.env.MODEL_ROUTES_CACHE ?? join(base, 'nestjs-model-routes');
}

function findOrBuildFerretDb(): string | undefined {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  const cached = join(cacheDir(), `ferretdb-${FERRETDB_VERSION}`);
  if (existsSync(cached)) return cached;
  if (!hasCommand('go')) return undefined;
  const script = findBuildScript();
  const out = execFileSync('bash', [script], {
    env: { ...process.env, FERRETDB_VERSION, MODEL_ROUTES_CACHE: cacheDir() },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  return out.trim().split('\n').pop();
}

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The script sits in `scripts/` of the repo, whether this file runs from source or from a build. */
function findBuildScript(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'scripts', 'build-ferretdb.sh');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('scripts/build-ferretdb.sh not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

// ---------------------------------------------------------------------------------------------
// FerretDB on SQLite

async function startFerretDbOnSqlite(binary: string, reason: string, keptDir?: string): Promise<Engine> {
  const startedAt = Date.now();
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'model-routes-ferretdb-'));
  const args = ['--handler=sqlite', `--sqlite-url=file:${dataDir}/`];
  const port = await freePort();
  let stopped = false;
  let server: Watched | undefined = await launchFerretDb(binary, args, port).catch(async (error) => {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    kind: 'ferretdb',
    backend: 'sqlite',
    uri: `mongodb://127.0.0.1:${port}/`,
    description: `FerretDB ${FERRETDB_VERSION} (SQLite backend; ${reason}) at mongodb://127.0.0.1:${port}/, data in ${dataDir}, started in ${Date.now() - startedAt} ms`,
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

/**
 * Settings of every private cluster. fsync, synchronous_commit and full_page_writes off make
 * writes cheap and lose nothing unless the machine itself crashes (a killed postgres still
 * recovers from its WAL): right for throw-away test clusters, and accepted for the sample app's
 * kept cluster too, whose data is demo data that the app can seed again.
 */
const PG_SETTINGS = [
  'listen_addresses=127.0.0.1',
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  // No replication: tables created and filled in one transaction skip the WAL.
  'wal_level=minimal',
  'max_wal_senders=0',
  // JIT compilation costs more than it saves on the small queries of tests.
  'jit=off',
];

async function startFerretDbOnPostgres(binary: string, bin: string, reason: string, keptDir?: string): Promise<Engine> {
  const startedAt = Date.now();
  const version = postgresVersion(bin);
  const owner = serverUser();
  const template = ensureTemplate(bin, version, owner);
  const clusterDir = keptDir ? keptCluster(keptDir, version, owner) : undefined;
  for (let attempt = 1; ; attempt++) {
    const [pgPort, port] = await freePorts(2);
    try {
      return await launchOnPostgres({ binary, bin, version, reason, owner, template, clusterDir, pgPort: pgPort!, port: port!, startedAt });
    } catch (error) {
      // Another process may take a free port before the server binds it: try other ports.
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
  /** The kept cluster; none for a temporary one. */
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
      uri: `mongodb://127.0.0.1:${port}/`,
      description:
        `FerretDB ${FERRETDB_VERSION} (PostgreSQL ${launch.version} backend; ${launch.reason}) at mongodb://127.0.0.1:${port}/, ` +
        `PostgreSQL at ${url}, cluster in ${clusterDir}${kept ? '' : ' (temporary)'}, started in ${Date.now() - launch.startedAt} ms`,
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

/**
 * Where temporary clusters go: /dev/shm (memory) when it has room, else the temporary folder.
 * Measured on a 2-core VM whose disk was busy, copying the 17 MB template took 0.03 s into
 * /dev/shm and 0.7 to 1.4 s into /tmp; in memory, the tests' writes cost no disk I/O either.
 * `MODEL_ROUTES_PG_TMPDIR` overrides it.
 */
function clusterTmpDir(): string {
  if (process.env.MODEL_ROUTES_PG_TMPDIR) return process.env.MODEL_ROUTES_PG_TMPDIR;
  try {
    const shm = '/dev/shm';
    accessSync(shm, constants.W_OK | constants.X_OK);
    const { bavail, bsize } = statfsSync(shm);
    // Docker's default /dev/shm is 64 MB: too small for a few clusters and their data.
    if (bavail * bsize >= 1024 ** 3) return shm;
  } catch {
    // no /dev/shm
  }
  return tmpdir();
}

const postgresVersions = new Map<string, string>();

/** `15.18` from `postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)`. */
function postgresVersion(bin: string): string {
  let version = postgresVersions.get(bin);
  if (!version) {
    const out = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
    version = /\(PostgreSQL\)\s+(\S+)/.exec(out)?.[1] ?? out.trim().split(/\s+/).pop()!;
    postgresVersions.set(bin, version);
  }
  return version;
}

/** Who runs initdb and postgres: this process, or, as root (which PostgreSQL refuses), a system user. */
interface ServerUser {
  name: string;
  uid: number;
  gid: number;
  /** The command prefix that runs a command as this user; empty when it is this process's user. */
  prefix: string[];
}

let cachedUser: ServerUser | undefined;

function serverUser(): ServerUser {
  if (cachedUser) return cachedUser;
  const uid = process.getuid?.() ?? -1;
  if (uid !== 0) {
    cachedUser = { name: process.env.USER ?? String(uid), uid, gid: process.getgid?.() ?? -1, prefix: [] };
    return cachedUser;
  }
  let found: { name: string; uid: number; gid: number } | undefined;
  for (const name of ['postgres', 'nobody']) {
    found = lookUpUser(name);
    if (found) break;
  }
  if (!found) throw new Error('PostgreSQL refuses to run as root, and neither a `postgres` nor a `nobody` user exists to run it');
  const { name, uid: userUid, gid: userGid } = found;
  // setpriv execs the command (so signals reach it directly); runuser is the fallback.
  let prefix: string[];
  if (onPath('setpriv')) prefix = ['setpriv', `--reuid=${userUid}`, `--regid=${userGid}`, '--clear-groups', '--'];
  else if (onPath('runuser')) prefix = ['runuser', '-u', name, '--'];
  else throw new Error('PostgreSQL refuses to run as root, and neither setpriv nor runuser is available to run it as ' + name);
  cachedUser = { name, uid: userUid, gid: userGid, prefix };
  return cachedUser;
}

/** A user's ids: from /etc/passwd, else from `id` (users of NSS: LDAP...). */
function lookUpUser(name: string): { name: string; uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${name}:`));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (uid && gid) return { name, uid: Number(uid), gid: Number(gid) };
  } catch {
    // no /etc/passwd
  }
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { name, uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && isExecutable(join(dir, command)));
}

function giveTo(user: ServerUser, path: string, recursive = false): void {
  if (user.prefix.length === 0) return;
  if (recursive) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path]);
  else chownSync(path, user.uid, user.gid);
}

/**
 * Runs a PostgreSQL tool once, as the server user, in a neutral folder and locale. Fails when it
 * fails, or when it reports an ERROR (single-user mode exits with 0 after a failed statement).
 */
function runAsServerUser(user: ServerUser, command: string, args: string[], input?: string): void {
  const [file, ...rest] = [...user.prefix, command, ...args];
  const result = spawnSync(file!, rest, { cwd: tmpdir(), env: postgresEnv(), input: input ?? '', encoding: 'utf8' });
  const output = `${result.stderr ?? ''}${result.stdout ?? ''}`;
  if (result.error || result.status !== 0 || /^(ERROR|FATAL|PANIC):/m.test(output)) {
    throw new Error(`${basename(command)} failed (${result.error ?? `exit code ${result.status}`}): ${output.trim().slice(-2000)}`);
  }
}

function postgresEnv(): NodeJS.ProcessEnv {
  // No PG* variables of the caller (PGDATA, PGPORT...) leak in; messages in English.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', LANG: 'C' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}

/**
 * The template cluster, made once per PostgreSQL version in the cache: initdb (about 0.7 s) and
 * FerretDB's database. Each engine copies it (about 0.1 s) instead of running initdb.
 * Concurrent first runs (parallel Jest workers) each build one; the first rename wins.
 */
function ensureTemplate(bin: string, version: string, user: ServerUser): string {
  const template = join(cacheDir(), `postgresql-${version}-template-${PG_TEMPLATE_FORMAT}`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  mkdirSync(cacheDir(), { recursive: true });
  // Built where the server user can reach (the cache may sit in root's home), then copied in.
  const staging = mkdtempSync(join(tmpdir(), 'model-routes-pg-template-'));
  const incoming = `${template}.${process.pid}.${Date.now().toString(36)}`;
  try {
    giveTo(user, staging);
    const data = join(staging, 'data');
    runAsServerUser(user, join(bin, 'initdb'), [
      `--pgdata=${data}`,
      `--username=${PG_USER}`,
      '--auth=trust',
      '--encoding=UTF8',
      '--locale=C',
      // A 1 MB WAL segment instead of 16 MB: a smaller cluster to copy.
      '--wal-segsize=1',
      '--no-sync',
      '--no-instructions',
    ]);
    // Single-user mode creates FerretDB's database without starting a server. The copy is what
    // each engine pays for, so the template keeps only template1 and that database (17 MB instead
    // of 35 MB): template0 and postgres are dropped (psql's default database is the user's,
    // `ferretdb`), and the WAL is kept to two segments.
    runAsServerUser(
      user,
      join(bin, 'postgres'),
      ['--single', '-D', data, '-c', 'fsync=off', '-c', 'min_wal_size=2MB', '-c', 'max_wal_size=2MB', 'template1'],
      [
        `CREATE DATABASE ${PG_DATABASE};`,
        'ALTER DATABASE template0 IS_TEMPLATE false;',
        'DROP DATABASE template0;',
        'DROP DATABASE postgres;',
        'CHECKPOINT;',
        '',
      ].join('\n'),
    );
    execFileSync('cp', ['-a', data, incoming]);
    try {
      renameSync(incoming, template);
    } catch (error) {
      if (!existsSync(join(template, 'PG_VERSION'))) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(incoming, { recursive: true, force: true });
  }
  return template;
}

/** Copies the template to `target` (which must not exist), owned by the server user. */
function copyCluster(template: string, target: string, user: ServerUser): void {
  mkdirSync(dirname(target), { recursive: true });
  const incoming = `${target}.incoming-${process.pid}`;
  try {
    execFileSync('cp', ['-a', template, incoming]);
    // cp -a keeps the template's owner: as root that is already the server user, unless another was chosen.
    if (user.prefix.length > 0 && statSync(template).uid !== user.uid) giveTo(user, incoming, true);
    chmodSync(incoming, 0o700);
    renameSync(incoming, target);
  } finally {
    rmSync(incoming, { recursive: true, force: true });
  }
}

/**
 * The kept cluster of `keptDir` (the sample app's): `keptDir/postgresql-<major>`. As root, when the
 * server user cannot reach `keptDir` (root's home is private), the cluster lives in
 * /var/tmp/nestjs-model-routes-<user>/ and `keptDir/postgresql-<major>` is a symlink to it; a
 * cluster there without its symlink (`keptDir` was deleted to start afresh) is deleted too.
 */
function keptCluster(keptDir: string, version: string, user: ServerUser): string {
  mkdirSync(keptDir, { recursive: true });
  const link = join(keptDir, `postgresql-${version.split('.')[0]}`);
  if (user.prefix.length === 0) return link;
  let isLink = false;
  try {
    isLink = lstatSync(link).isSymbolicLink();
  } catch {
    // does not exist yet
  }
  if (isLink) return readlinkSync(link);
  if (existsSync(link) || canReach(user, keptDir)) return link;
  // The folder itself is root's (0755); the cluster in it is the server user's (0700).
  const home = join('/var/tmp', `nestjs-model-routes-${user.name}`);
  mkdirSync(home, { recursive: true, mode: 0o755 });
  const target = join(home, `${basename(keptDir)}-${createHash('sha1').update(keptDir).digest('hex').slice(0, 8)}-${basename(link)}`);
  rmSync(target, { recursive: true, force: true });
  symlinkSync(target, link);
  return target;
}

function canReach(user: ServerUser, dir: string): boolean {
  try {
    execFileSync(user.prefix[0]!, [...user.prefix.slice(1), 'test', '-w', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs postgres on 127.0.0.1:`port` until kill(), or until this process dies. A temporary
 * cluster is stopped at once (immediate shutdown) and its folder `cleanup` removed; a kept one
 * gets a fast shutdown (a clean checkpoint).
 */
async function launchPostgres(
  bin: string,
  clusterDir: string,
  socketDir: string,
  port: number,
  user: ServerUser,
  cleanup: string,
  temporary: boolean,
): Promise<Watched> {
  // No autovacuum on a throw-away cluster: its ANALYZE would change what FerretDB answers to
  // `$collStats` (PostgreSQL's row estimate) at a moment no test controls.
  const settings = temporary ? [...PG_SETTINGS, 'autovacuum=off'] : PG_SETTINGS;
  const args = ['-D', clusterDir, '-p', String(port), '-k', socketDir, ...settings.flatMap((setting) => ['-c', setting])];
  // A temporary cluster's watchdog removes `cleanup` (the cluster and its socket folder) once
  // postgres has exited; a kept cluster's, only the socket folder.
  const server = watch({
    name: 'postgres-watchdog',
    prefix: user.prefix,
    command: join(bin, 'postgres'),
    args,
    signal: temporary ? 'QUIT' : 'INT',
    cleanup,
    env: postgresEnv(),
    // Its own process group: a Ctrl-C in the terminal must not reach postgres (which would stop
    // at once, under the app that is still shutting down); the pipe decides its end.
    detached: true,
  });
  try {
    await waitUntil(server, `PostgreSQL did not start on 127.0.0.1:${port}`, () => postgresReady(clusterDir, port));
  } catch (error) {
    await server.kill();
    throw error;
  }
  return server;
}

/** postmaster.pid's 4th line is the port, its 8th `ready` once connections are accepted. */
function postgresReady(clusterDir: string, port: number): boolean {
  try {
    const lines = readFileSync(join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
    return lines[3]?.trim() === String(port) && lines[7]?.trim() === 'ready';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

interface Watched {
  /** Stops the server with its signal (SIGTERM: FerretDB drains its queries for about 3 s), or with SIGKILL when `crash`. */
  kill(crash?: boolean): Promise<void>;
  exitCode(): number | null;
  stderr(): string;
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

interface WatchOptions {
  name: string;
  command: string;
  args: string[];
  /** The signal that stops the server when the pipe closes. */
  signal: 'TERM' | 'INT' | 'QUIT';
  /** Runs the watchdog (and so the server) as another user. */
  prefix?: string[];
  /** A folder the watchdog removes once the server has exited. */
  cleanup?: string;
  env?: NodeJS.ProcessEnv;
  detached?: boolean;
}

/**
 * The watchdog: kills the server when its stdin closes, which happens on kill() or when this
 * process dies for any reason; and exits with the server, so a server that fails is seen at once.
 * (A background job's stdin is /dev/null in sh, hence the copy of stdin on fd 3.)
 */
const WATCHDOG =
  'trap "" INT; exec 3<&0; sig=$1; dir=$2; shift 2; "$@" </dev/null & pid=$!; ' +
  '(read -r how <&3; [ "$how" = crash ] && sig=KILL; cat <&3 >/dev/null; kill -$sig $pid 2>/dev/null) & wait $pid; status=$?; ' +
  '[ -z "$dir" ] || rm -rf "$dir" 2>/dev/null; exit $status';

function watch(options: WatchOptions): Watched {
  const [file, ...prefixArgs] = [...(options.prefix ?? []), 'sh'];
  const child: ChildProcess = spawn(
    file!,
    [...prefixArgs, '-c', WATCHDOG, options.name, options.signal, options.cleanup ?? '', options.command, ...options.args],
    { stdio: ['pipe', 'ignore', 'pipe'], env: options.env ?? process.env, cwd: tmpdir(), detached: options.detached ?? false },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let spawnError: Error | undefined;
  child.on('error', (error) => (spawnError = error));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  // Do not keep the event loop alive for the server: when the process is done, the pipe closes.
  child.unref();
  (child.stdin as unknown as { unref?: () => void })?.unref?.();
  (child.stderr as unknown as { unref?: () => void })?.unref?.();

  return {
    async kill(crash = false) {
      // The watchdog signals the server when its stdin ends: with SIGKILL after a line `crash`.
      if (crash) child.stdin?.write('crash\n');
      child.stdin?.end();
      // At most 10 s; the timer is cleared as soon as the server exits, so it holds nothing open.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10000);
        void exited.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
    exitCode: () => (spawnError ? -1 : child.exitCode ?? (child.signalCode ? 128 : null)),
    stderr: () => (spawnError ? String(spawnError) : stderr),
  };
}

async function waitUntil(server: Watched, what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (server.exitCode() !== null) {
      throw new Error(`${what}: it exited with code ${server.exitCode()}: ${server.stderr().trim()}`);
    }
    if (await ready()) return;
    await delay(20);
  }
  throw new Error(`${what} within 15 s: ${server.stderr().trim()}`);
}

async function startMemoryServer(): Promise<Engine | undefined> {
  const moduleName = 'mongodb-memory-server';
  let mod: { MongoMemoryServer: { create(): Promise<{ getUri(): string; stop(): Promise<unknown> }> } };
  try {
    mod = await import(moduleName);
  } catch {
    return undefined;
  }
  const server = await mod.MongoMemoryServer.create();
  return {
    kind: 'mongodb-memory-server',
    uri: server.getUri(),
    description: `mongodb-memory-server at ${server.getUri()}`,
    stop: async () => void (await server.stop()),
  };
}

function freePort(): Promise<number> {
  return freePorts(1).then(([port]) => port!);
}

/** Lowest port of the servers' range: above the well-known and most registered services' ports. */
const SERVER_PORTS_FROM = 10000;
let portProbe = 0;

/**
 * `count` distinct free ports of 127.0.0.1 (held together while they are picked), below the
 * kernel's ephemeral range (`ip_local_port_range`, 32768 and up by default), where `listen(0)` would
 * pick them. A client's own end of a connection takes its port from that range, and a connection
 * to a port of it on which nothing listens (an engine stopped by a test, in the seconds before it
 * is started again) can be given that very port as its own: the socket connects to itself (TCP
 * simultaneous open). The driver's monitor then waits, for ever, for the answer to a `hello` that
 * it reads back as its own request, and the connection never comes back up although the engine
 * does (seen about once in 18 outages of the soak). A server port outside the range cannot be
 * any client's. The first candidate depends on the process id, so that concurrent processes
 * (Jest workers) probe different ports; an occupied candidate is skipped.
 */
export async function freePorts(count: number): Promise<number[]> {
  const ephemeralFrom = ephemeralPortsFrom();
  const span = ephemeralFrom - SERVER_PORTS_FROM;
  if (span < 1000) return listenedPorts(count);
  const held: ReturnType<typeof createServer>[] = [];
  try {
    for (let attempt = 0; held.length < count && attempt < 500; attempt++) {
      const candidate = SERVER_PORTS_FROM + ((process.pid * 7919 + portProbe++ * 104729) % span);
      const server = await listenOn(candidate);
      if (server) held.push(server);
    }
    if (held.length < count) throw new Error(`no ${count} free ports between ${SERVER_PORTS_FROM} and ${ephemeralFrom}`);
    return held.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** A server listening on `port` of 127.0.0.1, or `undefined` when the port is taken. */
function listenOn(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Ports the kernel picks (`listen(0)`): where no range below the ephemeral one is left. */
async function listenedPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.unref();
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]+@/, '//***@');
}
