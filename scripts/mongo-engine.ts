/**
 * Finds a MongoDB-compatible server for the tests, the sample app and the benchmarks.
 *
 * Resolution order (DESIGN.md section 6):
 * 1. `MONGODB_URI`, when set: used as is.
 * 2. FerretDB v1 on its embedded SQLite backend: a cached binary, built on first use
 *    from the Go module proxy by `scripts/build-ferretdb.sh` when `go` is on the PATH.
 * 3. `mongodb-memory-server` (a real `mongod`), when that package is installed.
 *
 * The engine is started as a child of a tiny `sh` watchdog that kills it as soon as
 * this process's pipe to it closes, so no engine outlives the process that started it,
 * even when that process is killed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type EngineKind = 'external' | 'ferretdb' | 'mongodb-memory-server';

export interface Engine {
  kind: EngineKind;
  /** Connection string without a database name; pass `dbName` to Mongoose. */
  uri: string;
  /** A line for logs: which engine, where. */
  description: string;
  stop(): Promise<void>;
  /** FerretDB only: stops the server but keeps its port and data, to test outages. */
  suspend?(): Promise<void>;
  /** FerretDB only: starts a suspended server again, on the same port with the same data. */
  resume?(): Promise<void>;
}

export interface StartEngineOptions {
  log?: (line: string) => void;
  /** FerretDB's data folder, kept after stop(). Default: a temporary folder, removed on stop(). */
  dataDir?: string;
}

const FERRETDB_VERSION = 'v1.24.2';

export async function startEngine(options: StartEngineOptions = {}): Promise<Engine> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const engine = await resolveEngine(options.dataDir);
  log(`[engine] ${engine.description}`);
  return engine;
}

async function resolveEngine(dataDir?: string): Promise<Engine> {
  const external = process.env.MONGODB_URI;
  if (external) {
    return {
      kind: 'external',
      uri: external,
      description: `MONGODB_URI (${redact(external)})`,
      stop: async () => undefined,
    };
  }
  const binary = findOrBuildFerretDb();
  if (binary) return startFerretDb(binary, dataDir);
  const memoryServer = await startMemoryServer();
  if (memoryServer) return memoryServer;
  throw new Error(
    'No MongoDB-compatible engine: set MONGODB_URI, install Go (FerretDB is built on first use), ' +
      'or `npm install mongodb-memory-server` on a machine that can download mongod.',
  );
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

async function startFerretDb(binary: string, keptDir?: string): Promise<Engine> {
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'model-routes-ferretdb-'));
  const port = await freePort();
  let stopped = false;
  let server: FerretDbProcess | undefined = await launchFerretDb(binary, dataDir, port).catch(async (error) => {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    kind: 'ferretdb',
    uri: `mongodb://127.0.0.1:${port}/`,
    description: `FerretDB ${FERRETDB_VERSION} (SQLite backend) at mongodb://127.0.0.1:${port}/, data in ${dataDir}`,
    async stop() {
      stopped = true;
      await server?.kill();
      server = undefined;
      if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async suspend() {
      await server?.kill();
      server = undefined;
    },
    async resume() {
      if (stopped) throw new Error('resume(): the engine was stopped; its data is gone');
      server ??= await launchFerretDb(binary, dataDir, port);
    },
  };
}

interface FerretDbProcess {
  kill(): Promise<void>;
}

/** Runs FerretDB on `port` with its data in `dataDir` until kill(), or until this process dies. */
async function launchFerretDb(binary: string, dataDir: string, port: number): Promise<FerretDbProcess> {
  const args = [
    '--handler=sqlite',
    `--sqlite-url=file:${dataDir}/`,
    `--listen-addr=127.0.0.1:${port}`,
    '--state-dir=-',
    '--telemetry=disable',
    '--debug-addr=-',
    '--log-level=warn',
  ];
  // The watchdog: kills the engine when its stdin closes, which happens on kill() or when this
  // process dies for any reason; and exits with the engine, so an engine that fails is seen at once.
  // (A background job's stdin is /dev/null in sh, hence the copy of stdin on fd 3.)
  const watchdog = 'trap "" INT; exec 3<&0; "$@" </dev/null & pid=$!; (cat <&3 >/dev/null; kill $pid 2>/dev/null) & wait $pid';
  const child = spawn('sh', ['-c', watchdog, 'ferretdb-watchdog', binary, ...args], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Do not keep the event loop alive for the engine: when the process is done, the pipe closes.
  child.unref();
  (child.stdin as unknown as { unref?: () => void })?.unref?.();
  (child.stderr as unknown as { unref?: () => void })?.unref?.();

  const kill = async () => {
    child.stdin?.end();
    // At most 5 s; the timer is cleared as soon as the engine exits, so it holds nothing open.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      void exited.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  try {
    await waitForPort(port, child, () => stderr);
  } catch (error) {
    await kill();
    throw error;
  }
  return { kill };
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
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`FerretDB exited with code ${child.exitCode}: ${stderr()}`);
    }
    if (await canConnect(port)) return;
    await delay(50);
  }
  throw new Error(`FerretDB did not listen on 127.0.0.1:${port} within 15 s: ${stderr()}`);
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
