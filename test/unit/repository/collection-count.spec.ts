import { CollectionCount, type CountSources } from '../../../src/repository/collection-count.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function collectionCountSpec(): void {
  /** Sources answering from scripts, counting how often each was asked. */
  function sources(collStats: () => Promise<readonly { count?: unknown }[]>, estimate = 42) {
    const calls = { collStats: 0, estimated: 0 };
    const counted: CountSources = {
      collStats: () => {
        calls.collStats++;
        return collStats();
      },
      estimated: async () => {
        calls.estimated++;
        return estimate;
      },
    };
    return { counted, calls };
  }

  function serverError(code: number): Error {
    return Object.assign(new Error(`server error ${code}`), { code });
  }

  describe('CollectionCount', () => {
    it('answers the count $collStats reads from the metadata, without asking for the estimate', async () => {
      const { counted, calls } = sources(async () => [{ count: 120 }]);
      await expect(new CollectionCount(counted).read()).resolves.toBe(120);
      expect(calls).toEqual({ collStats: 1, estimated: 0 });
    });

    it('sums the counts of the shards of a sharded collection (one document per shard)', async () => {
      const { counted } = sources(async () => [{ count: 40 }, { count: 0 }, { count: 2 }]);
      await expect(new CollectionCount(counted).read()).resolves.toBe(42);
    });

    it.each([13, 59, 115, 166, 238, 40324])('falls back to the estimate when the stage is refused (code %i), and tries the stage once', async (code) => {
      const { counted, calls } = sources(async () => {
        throw serverError(code);
      }, 7);
      const count = new CollectionCount(counted);
      await expect(count.read()).resolves.toBe(7);
      await expect(count.read()).resolves.toBe(7);
      expect(calls).toEqual({ collStats: 1, estimated: 2 });
    });

    it('throws any other failure (a time limit, a lost connection) and tries the stage again next time', async () => {
      let failing = true;
      const { counted, calls } = sources(async () => {
        if (failing) throw serverError(50);
        return [{ count: 3 }];
      });
      const count = new CollectionCount(counted);
      await expect(count.read()).rejects.toMatchObject({ code: 50 });
      failing = false;
      await expect(count.read()).resolves.toBe(3);
      expect(calls).toEqual({ collStats: 2, estimated: 0 });
    });

    it('asks for the estimate when the collection does not exist yet (26 NamespaceNotFound), and tries the stage again next time', async () => {
      let exists = false;
      const { counted, calls } = sources(async () => {
        if (!exists) throw serverError(26);
        return [{ count: 1 }];
      }, 0);
      const count = new CollectionCount(counted);
      await expect(count.read()).resolves.toBe(0);
      exists = true;
      await expect(count.read()).resolves.toBe(1);
      expect(calls).toEqual({ collStats: 2, estimated: 1 });
    });

    it.each([
      ['a negative count (FerretDB on PostgreSQL before ANALYZE)', [{ count: -1 }]],
      ['a shard without a count', [{ count: 5 }, {}]],
      ['no document at all', []],
      ['a count that is not an integer', [{ count: 1.5 }]],
    ])('asks for the estimate for this request only on %s', async (_label, answer) => {
      let metadata: readonly { count?: unknown }[] = answer;
      const { counted, calls } = sources(async () => metadata, 9);
      const count = new CollectionCount(counted);
      await expect(count.read()).resolves.toBe(9);
      metadata = [{ count: 11 }];
      await expect(count.read()).resolves.toBe(11);
      expect(calls).toEqual({ collStats: 2, estimated: 1 });
    });
  });
}
