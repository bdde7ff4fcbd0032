/**
 * Locks on referenced documents, within this process, that order the writes naming a document
 * against its delete (see `referenceLocks` and `targetLocks` in delete-cascade.ts): the writes
 * share a document's lock (any number run at once: creating many companies of one owner stays
 * parallel), its delete holds it alone, after the writes that came before it and before those that
 * come after. Several keys are taken in sorted order, the same for every caller, so that two
 * callers can never each hold a key the other waits for.
 */
export class ReferenceLocks {
  private readonly keys = new Map<string, KeyState>();
  private queued = 0;

  /** Runs `write` sharing the locks of `keys` with other writes, never with a delete. */
  shared<T>(keys: readonly string[], write: () => Promise<T>): Promise<T> {
    return this.holdAll(keys, false, write);
  }

  /** Runs `remove` holding the locks of `keys` alone. */
  exclusive<T>(keys: readonly string[], remove: () => Promise<T>): Promise<T> {
    return this.holdAll(keys, true, remove);
  }

  /** Runs waiting for their turn on a lock (for tests: a deterministic sign that one is held). */
  get waiting(): number {
    return this.queued;
  }

  private holdAll<T>(keys: readonly string[], alone: boolean, run: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    const hold = (index: number): Promise<T> => (index === sorted.length ? run() : this.hold(sorted[index], alone, () => hold(index + 1)));
    return hold(0);
  }

  private hold<T>(key: string, alone: boolean, run: () => Promise<T>): Promise<T> {
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { exclusive: Promise.resolve(), shared: new Set(), pending: 0 }));
    const turn = alone ? Promise.all([state.exclusive, ...state.shared]) : state.exclusive;
    state.pending++;
    this.queued++;
    const result = turn.then(() => {
      this.queued--;
      return run();
    });
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    if (alone) {
      // Writes that come after wait for this delete; those before are in its turn.
      state.exclusive = settled;
      state.shared = new Set();
    } else {
      state.shared.add(settled);
    }
    const current = state;
    void settled.then(() => {
      current.shared.delete(settled);
      // Forget the key once nothing holds or waits for it: the map holds only documents in use.
      if (--current.pending === 0 && this.keys.get(key) === current) this.keys.delete(key);
    });
    return result;
  }
}

interface KeyState {
  /** Settles when the last delete that took the key is done. */
  exclusive: Promise<void>;
  /** The writes that took the key since that delete. */
  shared: Set<Promise<void>>;
  /** Holders and waiters. */
  pending: number;
}

/** The locks of this process, shared by every repository. */
export const referenceLocksOfProcess = new ReferenceLocks();
