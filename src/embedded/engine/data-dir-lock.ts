/**
 * A kept data folder (the sample app's) serves one engine at a time: a second one on the same
 * folder would meet the first's PostgreSQL cluster, which refuses it with its own words and a
 * stack trace. So the engine helper holds a lock file in the folder while its engine runs, and a
 * second start is told at once who holds it.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The lock file, in the data folder. */
export const LOCK_FILE = 'in-use.json';

/**
 * What the lock file says of the process that holds the folder.
 *
 * @publicApi
 */
export interface DataDirHolder {
  pid: number;
  /** What the holder said it is (`the sample app on http://127.0.0.1:3000`), if anything. */
  owner?: string;
}

/**
 * A start on a data folder that another running engine holds; the message names its process and the fix.
 *
 * @publicApi
 */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataDirHolder,
  ) {
    super(
      `The data folder ${dataDir} is in use by process ${holder.pid}${holder.owner ? ` (${holder.owner})` : ''}: ` +
        `stop that process, or start this one with another data folder. If no such process runs, delete ${join(dataDir, LOCK_FILE)}.`,
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * Takes the lock of `dataDir` for this process (creating the folder); the function returned
 * releases it, and so does this process's exit. A lock whose process no longer runs (a holder
 * killed with SIGKILL) is stale and taken over; a live holder, this process included (a second
 * engine on the folder), is a `DataDirInUseError`.
 */
export function lockDataDir(dataDir: string, owner?: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const token = randomUUID();
  for (let attempt = 0; ; attempt++) {
    try {
      // `wx`: created only if absent, so of two starts at once exactly one gets it.
      writeFileSync(file, JSON.stringify({ pid: process.pid, owner, token }), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
    }
    const holder = readHolder(file);
    if (holder && isRunning(holder.pid)) throw new DataDirInUseError(dataDir, { pid: holder.pid, owner: holder.owner });
    rmSync(file, { force: true });
  }
  const release = () => {
    process.removeListener('exit', release);
    if (readHolder(file)?.token === token) rmSync(file, { force: true });
  };
  process.on('exit', release);
  return release;
}

function readHolder(file: string): (DataDirHolder & { token?: string }) | undefined {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as DataDirHolder & { token?: string };
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    // unreadable or half-written: stale
    return undefined;
  }
}

/** Whether a process with this PID runs (EPERM: it does, as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
