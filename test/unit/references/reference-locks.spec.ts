import { ReferenceLocks } from '../../../src/references/reference-locks.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function referenceLocksSpec(): void {
  function gate(): { promise: Promise<void>; open: () => void } {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    return { promise, open };
  }

  describe('ReferenceLocks', () => {
    it('lets writes share a key, makes a delete wait for them, and the writes after it wait for the delete', async () => {
      const locks = new ReferenceLocks();
      const order: string[] = [];
      const first = gate();
      const writeA = locks.shared(['k'], async () => {
        order.push('a starts');
        await first.promise;
        order.push('a ends');
      });
      const writeB = locks.shared(['k'], async () => void order.push('b'));
      await writeB; // not behind a
      const remove = locks.exclusive(['k'], async () => void order.push('delete'));
      const writeC = locks.shared(['k'], async () => void order.push('c'));
      await Promise.resolve();
      expect(locks.waiting).toBe(2);
      first.open();
      await Promise.all([writeA, remove, writeC]);
      expect(order).toEqual(['a starts', 'b', 'a ends', 'delete', 'c']);
      expect(locks.waiting).toBe(0);
    });

    it('takes several keys in sorted order, so crossing callers cannot wait for each other', async () => {
      const locks = new ReferenceLocks();
      const results = await Promise.all([
        locks.exclusive(['x', 'y'], async () => 'xy'),
        locks.exclusive(['y', 'x'], async () => 'yx'),
        locks.shared(['y', 'x', 'x'], async () => 'shared'),
      ]);
      expect(results).toEqual(['xy', 'yx', 'shared']);
    });

    it('a failed holder releases its key', async () => {
      const locks = new ReferenceLocks();
      await expect(locks.exclusive(['k'], () => Promise.reject(new Error('no')))).rejects.toThrow('no');
      await expect(locks.shared(['k'], async () => 1)).resolves.toBe(1);
    });
  });
}
