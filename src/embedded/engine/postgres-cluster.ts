/**
 * FerretDB's private PostgreSQL clusters: the template (initdb'd once per PostgreSQL version into
 * the cache), its copies (a temporary cluster per engine, in memory when /dev/shm has room), the
 * sample app's kept cluster, the server user (PostgreSQL refuses to run as root), and postgres
 * itself, launched under the watchdog until it is ready.
 *
 * Measured timings (a 2-core VM whose disk was busy): initdb takes about 0.7 s, so each engine
 * copies the template instead (about 0.1 s); copying the 17 MB template took 0.03 s into /dev/shm
 * and 0.7 to 1.4 s into /tmp, and in memory the tests' writes cost no disk I/O either.
 */
import { execFileSync, spawnSync } from 'node:child_process';
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
  readlinkSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { cacheDir, onPath } from './choice.js';
import { GIN_TWIN_SQL } from './gin-twins.js';
import { waitUntil, watch, type Watched } from './watchdog.js';

/** The PostgreSQL role and database FerretDB uses in its private cluster. */
export const PG_USER = 'ferretdb';
export const PG_DATABASE = 'ferretdb';
/**
 * Bump when the template's initdb options or contents change, so old templates are not reused
 * (3: the GIN twins' event triggers, scripts/engine/gin-twins.ts).
 */
const PG_TEMPLATE_FORMAT = 3;

/**
 * Settings of every private cluster. fsync, synchronous_commit and full_page_writes off make
 * writes cheap and lose nothing unless the machine itself crashes (a killed postgres still
 * recovers from its WAL): right for throw-away test clusters, and accepted for the sample app's
 * kept cluster too, whose data is demo data that the app can seed again.
 */
export const PG_SETTINGS = [
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

/**
 * Where temporary clusters go: /dev/shm (memory) when it has room, else the temporary folder
 * (the module header says what that saves). `MODEL_ROUTES_PG_TMPDIR` overrides it.
 */
export function clusterTmpDir(): string {
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
export function postgresVersion(bin: string): string {
  let version = postgresVersions.get(bin);
  if (!version) {
    const out = execFileSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' });
    version = /\(PostgreSQL\)\s+(\S+)/.exec(out)?.[1] ?? out.trim().split(/\s+/).pop()!;
    postgresVersions.set(bin, version);
  }
  return version;
}

/** Who runs initdb and postgres: this process, or, as root (which PostgreSQL refuses), a system user. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
  /** The command prefix that runs a command as this user; empty when it is this process's user. */
  prefix: string[];
}

let cachedUser: ServerUser | undefined;

export function serverUser(): ServerUser {
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

/** Gives `path` (with `recursive`, all it holds) to the server user; nothing when that is this process's user. */
export function giveTo(user: ServerUser, path: string, recursive = false): void {
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
 * The template cluster, made once per PostgreSQL version in the cache: initdb and FerretDB's
 * database. Each engine copies it instead of running initdb (much cheaper: see the module header).
 * Concurrent first runs (parallel Jest workers) each build one; the first rename wins.
 */
export function ensureTemplate(bin: string, version: string, user: ServerUser): string {
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
    // Then, in FerretDB's database, the event triggers that give its indexes their GIN twins
    // (`-j`: a statement ends with `;` and a blank line, so function bodies span lines).
    runAsServerUser(
      user,
      join(bin, 'postgres'),
      ['--single', '-j', '-D', data, '-c', 'fsync=off', '-c', 'min_wal_size=2MB', '-c', 'max_wal_size=2MB', PG_DATABASE],
      [...GIN_TWIN_SQL, 'CHECKPOINT;', ''].join('\n\n'),
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
export function copyCluster(template: string, target: string, user: ServerUser): void {
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
export function keptCluster(keptDir: string, version: string, user: ServerUser): string {
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
export async function launchPostgres(
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
