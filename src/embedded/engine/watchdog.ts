/**
 * Every server runs as a child of a tiny `sh` watchdog that kills it as soon as this process's
 * pipe to it closes, so no server outlives the process that started it, even when that process is
 * killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';

export interface Watched {
  /** Stops the server with its signal (SIGTERM: FerretDB drains its queries for about 3 s), or with SIGKILL when `crash`. */
  kill(crash?: boolean): Promise<void>;
  exitCode(): number | null;
  stderr(): string;
}

export interface WatchOptions {
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

export function watch(options: WatchOptions): Watched {
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
    exitCode: () => (spawnError ? -1 : (child.exitCode ?? (child.signalCode ? 128 : null))),
    stderr: () => (spawnError ? String(spawnError) : stderr),
  };
}

export async function waitUntil(server: Watched, what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
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

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
