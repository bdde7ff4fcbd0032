import type { Connection } from 'mongoose';
import { serverEngine } from './server-engine.js';

/**
 * Runs the writes to one document one after the other, within this process, on engines whose
 * single-document updates are not atomic.
 *
 * MongoDB applies an update to one document atomically, so concurrent `PUT`s of different fields
 * all land. FerretDB v1 does not: its `findAndModify` reads the document, then rewrites it, with
 * no transaction between (measured in DESIGN.md section 6: 19 of 30 concurrent field updates
 * lost). On such an engine, detected once per connection from `buildInfo`, the repository queues
 * the writes of each document here, so that the writes of one app process never overwrite each
 * other. Writes from several processes to one document can still race on such an engine; on
 * MongoDB nothing is queued and nothing is lost.
 */
export class WriteSerializer {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `write` once every write queued before it under `key` has settled. */
  run<T>(key: string, write: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    const result = previous ? previous.then(write) : write();
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once its last write is done: the map holds only documents being written.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with writes in progress (for tests). */
  get size(): number {
    return this.tails.size;
  }
}

/**
 * Whether the server behind `connection` applies single-document updates atomically: `false` for
 * FerretDB, `true` for MongoDB (see `serverEngine`, asked once per connection).
 */
export function hasAtomicDocumentWrites(connection: Connection): Promise<boolean> {
  return serverEngine(connection).then((engine) => engine === 'mongodb');
}
