import type { Connection } from 'mongoose';

/** The server behind a connection: MongoDB, or FerretDB, which implements part of its query language. */
export type ServerEngine = 'mongodb' | 'ferretdb';

const engines = new WeakMap<Connection, Promise<ServerEngine>>();
/** The answers received: what `knownServerEngine` gives without waiting. */
const known = new WeakMap<Connection, ServerEngine>();

/**
 * Which server `connection` talks to: `'ferretdb'` when `buildInfo` reports a `ferretdbVersion`,
 * `'mongodb'` otherwise. Asked once per connection; a failed question (the server is down) is
 * asked again next time.
 */
export function serverEngine(connection: Connection): Promise<ServerEngine> {
  let asked = engines.get(connection);
  if (!asked) {
    asked = connection
      .asPromise()
      .then((open) => open.db!.admin().command({ buildInfo: 1 }))
      .then((info): ServerEngine => {
        const engine = 'ferretdbVersion' in info ? 'ferretdb' : 'mongodb';
        known.set(connection, engine);
        return engine;
      });
    engines.set(connection, asked);
    asked.catch(() => engines.delete(connection));
  }
  return asked;
}

/** `serverEngine`'s answer for `connection` if it has come, else `undefined`: for a hot path that need not wait for a settled promise. */
export function knownServerEngine(connection: Connection): ServerEngine | undefined {
  return known.get(connection);
}
