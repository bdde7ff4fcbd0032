/**
 * Which engine to start: the choice (`options.engine`, `MODEL_ROUTES_ENGINE`, or the backend of
 * `startEmbeddedDatabase()`), the FerretDB backend it resolves to, where PostgreSQL's server
 * binaries are, the cache folder, and the FerretDB binary (looked up, or built on first use by
 * `scripts/build-ferretdb.sh`).
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineChoice, FerretDbBackend } from './types.js';

export const FERRETDB_VERSION = 'v1.24.2';
const ENGINE_CHOICES: readonly EngineChoice[] = ['auto', 'ferretdb-postgresql', 'ferretdb-sqlite'];

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
          "or use FerretDB's SQLite backend (MODEL_ROUTES_ENGINE=ferretdb-sqlite; startEmbeddedDatabase({ backend: 'sqlite' }))",
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

export function isExecutable(path: string): boolean {
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

/** The FerretDB binary: `FERRETDB_BIN`, else the cached build, else built now when `go` is on the PATH. */
export function findOrBuildFerretDb(): string | undefined {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  const cached = join(cacheDir(), `ferretdb-${FERRETDB_VERSION}`);
  if (existsSync(cached)) return cached;
  if (!hasCommand('go')) return undefined;
  const script = findBuildScript();
  let out: string;
  try {
    // The script says on stderr, in one line, that it builds (once, about a minute) and where to.
    out = execFileSync('bash', [script], {
      env: { ...process.env, FERRETDB_VERSION, MODEL_ROUTES_CACHE: cacheDir() },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
  } catch (error) {
    throw new Error(
      `Building FerretDB ${FERRETDB_VERSION} with Go failed (its output is above; 'go' fetches it from the Go module proxy, so it needs the network ` +
        `once): ${(error as Error).message.split('\n')[0]}. Set FERRETDB_BIN to a FerretDB v1 binary, or connect to MongoDB instead.`,
      { cause: error },
    );
  }
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

/**
 * The script sits in `scripts/` of the package (the repo, or the installed package, whose `files`
 * ship it), whether this file runs from source (src/embedded/engine/) or from a build (dist/embedded/engine/).
 */
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

/** Whether `command` is an executable file in a folder of the PATH. */
export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && isExecutable(join(dir, command)));
}
