import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A running instance of test/fixtures/instance-app: a Node process of its own. */
export interface AppInstance {
  /** `http://127.0.0.1:<port>`, for supertest. */
  readonly url: string;
  /** The HTTP platform it serves on, as it reported it. */
  readonly adapter: 'express' | 'fastify';
  /** SIGTERM (the app closes its connection), SIGKILL if it has not exited after 5 s; once. */
  stop(): Promise<void>;
}

/**
 * Compiles test/fixtures/<app> (and the sources it imports) into dist-test/, type-checked
 * and incremental (a second run takes a second or so), and returns the path of its main.js.
 */
export async function buildInstanceApp(app: 'instance-app' | 'throttled-app' = 'instance-app'): Promise<string> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', join(root, `test/fixtures/${app}/tsconfig.json`)], { cwd: root }).catch(
    (error: { stdout?: string }) => {
      // tsc writes its diagnostics to stdout.
      throw new Error(`tsc -p test/fixtures/${app}/tsconfig.json failed:\n${error.stdout ?? String(error)}`);
    },
  );
  return join(root, `dist-test/test/fixtures/${app}/main.js`);
}

/**
 * Starts `main` with `env` (MONGODB_URI, DB_NAME; the run's MODEL_ROUTES_ADAPTER is passed on)
 * and resolves once it prints `LISTENING <port> <adapter>`; rejects, with what it wrote to stderr, if it
 * exits first or has not listened within `timeoutMS`.
 */
export function startInstance(main: string, env: Record<string, string>, timeoutMS = 30000): Promise<AppInstance> {
  const child = spawn(process.execPath, [main], { cwd: root, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  // Should the test process end without afterAll (a crash), the instance ends with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    })());
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let settled = false;
  return new Promise<AppInstance>((resolve, reject) => {
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`test/fixtures/instance-app ${reason}:\n${stderr}`)));
    };
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMS} ms`), timeoutMS);
    child.once('exit', (code, signal) => fail(`exited (${code ?? signal}) before listening`));
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (settled) return;
      stdout += chunk;
      const [, port, adapter] = /^LISTENING (\d+) (express|fastify)$/m.exec(stdout) ?? [];
      if (!port) return;
      settled = true;
      clearTimeout(timer);
      resolve({ url: `http://127.0.0.1:${port}`, adapter: adapter as AppInstance['adapter'], stop });
    });
  });
}
