import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../../../src/embedded/engine/data-dir-lock.js';
import { startFailureLine } from '../../../sample-app/start-failure.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function dataDirLockSpec(): void {
  /**
   * Issue 23 item 28: a second `npm run sample` on the same data folder is told, in one line, which
   * process holds it and what to do, instead of dying with PostgreSQL's words and a stack trace.
   */
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'model-routes-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A process that runs until killed, and its PID. */
  function sleeper(): { pid: number; stop(): Promise<void> } {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    return { pid: child.pid!, stop: () => (child.kill('SIGKILL'), exited) };
  }

  describe('lockDataDir', () => {
    it('refuses a second holder while the first runs, naming its PID and what it is; free again once released', () => {
      const release = lockDataDir(dir, 'the sample app on http://127.0.0.1:3000');
      let refusal: unknown;
      try {
        lockDataDir(dir);
      } catch (error) {
        refusal = error;
      }
      expect(refusal).toBeInstanceOf(DataDirInUseError);
      expect((refusal as DataDirInUseError).holder).toEqual({ pid: process.pid, owner: 'the sample app on http://127.0.0.1:3000' });
      expect((refusal as Error).message).toContain(`in use by process ${process.pid} (the sample app on http://127.0.0.1:3000)`);
      release();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      lockDataDir(dir)();
    });

    it('refuses a folder held by another running process', async () => {
      const other = sleeper();
      try {
        writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: other.pid, owner: 'the sample app on http://127.0.0.1:3001', token: 'x' }));
        expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
      } finally {
        await other.stop();
      }
    });

    it('takes over the lock of a process that no longer runs (killed with SIGKILL), and an unreadable one', async () => {
      const gone = sleeper();
      await gone.stop();
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: gone.pid, token: 'x' }));
      const release = lockDataDir(dir, 'me');
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, owner: 'me' });
      release();
      writeFileSync(join(dir, LOCK_FILE), '{"pi');
      lockDataDir(dir)();
    });

    it('releases only its own lock', () => {
      const release = lockDataDir(dir);
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, token: 'someone else' }));
      release();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(true);
    });
  });

  describe("the sample's line for a failed start", () => {
    it('names the other sample, its PID and address, and the settings that start this one beside it', () => {
      const line = startFailureLine(
        new DataDirInUseError('/home/ada/.cache/nestjs-model-routes/sample-data', { pid: 2563, owner: 'the sample app on http://127.0.0.1:3000' }),
        { host: '127.0.0.1', port: 3000 },
      );
      expect(line).toBe(
        'Another sample app is running on the data folder /home/ada/.cache/nestjs-model-routes/sample-data (PID 2563, the sample app on ' +
          'http://127.0.0.1:3000): ' +
          'stop it (kill 2563), or start this one beside it with a data folder and a port of its own: SAMPLE_DATA_DIR=/tmp/sample-2 PORT=3001 npm run sample',
      );
      expect(line).not.toContain('\n');
    });

    it('names a port in use', () => {
      const error = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), { code: 'EADDRINUSE' });
      expect(startFailureLine(error, { host: '127.0.0.1', port: 3000 })).toBe(
        'Port 3000 of 127.0.0.1 is in use (another sample app?): stop that process, or start this one on another port: PORT=3001 npm run sample',
      );
    });

    it('leaves any other failure to be printed whole', () => {
      expect(startFailureLine(new Error('boom'), { host: '127.0.0.1', port: 3000 })).toBeUndefined();
    });
  });
}
