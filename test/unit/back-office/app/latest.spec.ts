import { latest, type LoadHandlers } from '../../../../src/back-office/app/latest.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function latestSpec(): void {
  /** A promise settled by hand, when the test says: the order of answers is chosen, no timer runs. */
  function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
    let resolve!: (value: T) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<T>((yes, no) => ((resolve = yes), (reject = no)));
    return { promise, resolve, reject };
  }

  /** Handlers that write down what reached them. */
  function recorder(seen: string[], name: string): LoadHandlers<string> {
    return { done: (value) => void seen.push(`${name} done ${value}`), failed: (error) => void seen.push(`${name} failed ${(error as Error).message}`) };
  }

  describe('latest(): the latest request wins (back office app)', () => {
    it("uses a load's value, and its failure, when it is the only one", async () => {
      const runner = latest();
      const seen: string[] = [];
      await runner.run(() => Promise.resolve('a'), recorder(seen, 'first'));
      await runner.run(() => Promise.reject(new Error('down')), recorder(seen, 'second'));
      expect(seen).toEqual(['first done a', 'second failed down']);
    });

    it('drops an older load that answers after a newer one', async () => {
      const runner = latest();
      const seen: string[] = [];
      const [older, newer] = [deferred<string>(), deferred<string>()];
      const first = runner.run(() => older.promise, recorder(seen, 'older'));
      const second = runner.run(() => newer.promise, recorder(seen, 'newer'));
      newer.resolve('b');
      await second;
      older.resolve('a');
      await first;
      expect(seen).toEqual(['newer done b']);
    });

    it('drops an older load that answers first, once a newer one was started', async () => {
      const runner = latest();
      const seen: string[] = [];
      const [older, newer] = [deferred<string>(), deferred<string>()];
      const first = runner.run(() => older.promise, recorder(seen, 'older'));
      const second = runner.run(() => newer.promise, recorder(seen, 'newer'));
      older.resolve('a');
      await first;
      expect(seen).toEqual([]);
      newer.resolve('b');
      await second;
      expect(seen).toEqual(['newer done b']);
    });

    it("drops a stale load's failure too, before and after the newer one answered (the picker's race)", async () => {
      const runner = latest();
      const seen: string[] = [];
      const [older, newer, oldest] = [deferred<string>(), deferred<string>(), deferred<string>()];
      const first = runner.run(() => oldest.promise, recorder(seen, 'oldest'));
      const second = runner.run(() => older.promise, recorder(seen, 'older'));
      const third = runner.run(() => newer.promise, recorder(seen, 'newer'));
      oldest.reject(new Error('timeout'));
      await first;
      newer.resolve('c');
      await third;
      older.reject(new Error('503'));
      await second;
      expect(seen).toEqual(['newer done c']);
    });

    it('cancel() makes every load on its way stale: neither its value nor its failure is used (a pick, an emptied input, a new page)', async () => {
      const runner = latest();
      const seen: string[] = [];
      const [answering, failing] = [deferred<string>(), deferred<string>()];
      const first = runner.run(() => answering.promise, recorder(seen, 'first'));
      const second = runner.run(() => failing.promise, recorder(seen, 'second'));
      expect(runner.pending).toBe(true);
      runner.cancel();
      expect(runner.pending).toBe(false);
      failing.reject(new Error('down'));
      answering.resolve('a');
      await Promise.all([first, second]);
      expect(seen).toEqual([]);
      await runner.run(() => Promise.resolve('after'), recorder(seen, 'next'));
      expect(seen).toEqual(['next done after']);
    });

    it('is pending while its latest load is on its way, not while only stale ones are', async () => {
      const runner = latest();
      expect(runner.pending).toBe(false);
      const [older, newer] = [deferred<string>(), deferred<string>()];
      const first = runner.run(() => older.promise, recorder([], 'older'));
      const second = runner.run(() => newer.promise, recorder([], 'newer'));
      newer.resolve('b');
      await second;
      expect(runner.pending).toBe(false);
      older.resolve('a');
      await first;
      expect(runner.pending).toBe(false);
    });

    it("awaits a handler's promise, and rejects with a handler's error (never with a dropped load's)", async () => {
      const runner = latest();
      const steps: string[] = [];
      const gate = deferred<void>();
      const run = runner.run(() => Promise.resolve('a'), {
        done: async () => {
          await gate.promise;
          steps.push('rendered');
        },
        failed: () => undefined,
      });
      let settled = false;
      void run.then(() => (settled = true));
      await Promise.resolve();
      await Promise.resolve();
      expect(settled).toBe(false);
      gate.resolve();
      await run;
      expect(steps).toEqual(['rendered']);
      await expect(
        runner.run(() => Promise.reject(new Error('down')), {
          done: () => undefined,
          failed: (error) => {
            throw error;
          },
        }),
      ).rejects.toThrow('down');
      const stale = runner.run(() => Promise.reject(new Error('stale')), {
        done: () => undefined,
        failed: (error) => {
          throw error;
        },
      });
      runner.cancel();
      await expect(stale).resolves.toBeUndefined();
    });
  });
}
