import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './harness.js';

/** The sample app (`sample-app/main.ts`, built into dist-bench) in its own process, as the soak drives it. */

const here = dirname(fileURLToPath(import.meta.url));

/** A running sample app: its process, port, and how it ended once it has. */
export interface SampleApp {
  process: ChildProcess;
  port: number;
  url: string;
  /** The file that keeps everything the app printed. */
  logFile: string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
}

/** Which HTTP platform the sample serves on (its `ADAPTER` variable). */
export type Adapter = 'express' | 'fastify';

/**
 * Starts the sample app on a free port against `uri` (so it does not start an engine of its own),
 * and waits for its "Listening on" line. `selectionTimeoutMs` is the driver's serverSelectionTimeoutMS.
 */
export async function startSampleApp(uri: string, adapter: Adapter, selectionTimeoutMs: number): Promise<SampleApp> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(here, '..', 'sample-app', 'main.js')], {
    env: {
      ...process.env,
      MONGODB_URI: uri,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADAPTER: adapter === 'fastify' ? 'fastify' : '',
      MONGODB_SERVER_SELECTION_TIMEOUT_MS: String(selectionTimeoutMs),
      SAMPLE_SEED: '0',
      // Nest's colours would only clutter the log kept for a failure.
      NO_COLOR: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = join(tmpdir(), `soak-sample-app-${port}.log`);
  const file = createWriteStream(logFile);
  child.stdout!.pipe(file);
  child.stderr!.pipe(file);
  const log: string[] = [];
  const keep = (chunk: Buffer) => log.push(...chunk.toString().split('\n').filter(Boolean).slice(-50));
  child.stderr!.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the sample app did not listen within 60 s:\n${log.slice(-20).join('\n')}`)), 60000);
    void exited.then(({ code }) => reject(new Error(`the sample app exited with ${code} before listening:\n${log.slice(-20).join('\n')}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (chunk.toString().includes('Listening on')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { process: child, port, url: `http://127.0.0.1:${port}`, logFile, exited };
}

/** The resident set size of a process in MiB, from /proc/<pid>/status (Linux). */
export function rssMiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  const kib = Number(/(\d+)/.exec(line ?? '')?.[1]);
  if (!Number.isFinite(kib)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Math.round(kib / 1024);
}

/** Stops the app with SIGKILL if it still runs (the end of a failed run). */
export function killSampleApp(app: SampleApp): void {
  if (app.process.exitCode === null && app.process.signalCode === null) app.process.kill('SIGKILL');
}

/** How many bytes of output the app has written so far: a mark for `loggedErrors`. */
export function logMark(app: SampleApp): number {
  return statSync(app.logFile).size;
}

/** The first line of every error the app logged after `mark` (Nest's `ERROR [Context] Name: message`), whole. */
export function loggedErrors(app: SampleApp, mark: number): string[] {
  const text = readFileSync(app.logFile).subarray(mark).toString();
  return text
    .split('\n')
    .filter((entry) => /\bERROR \[/.test(entry))
    .map((entry) => entry.replace(/^.*?\bERROR /, ''));
}
