import type { Connection } from 'mongoose';

/** The server behind a connection: MongoDB, or FerretDB, which implements part of its query language. */
export type ServerEngine = 'mongodb' | 'ferretdb';

const engines = new WeakMap<Connection, Promise<ServerEngine>>();

/**
 * Which server `connection` talks to: `'ferretdb'` when `buildInfo` reports a `ferretdbVersion`,
 * `'mongodb'` otherwise. Asked once per connection; a failed question (the server is down) is
 * asked again next time.
 */
export function serverEngine(connection: Connection): Promise<ServerEngine> {
  let known = engines.get(connection);
  if (!known) {
    known = connection
      .asPromise()
      .then((open) => open.db!.admin().command({ buildInfo: 1 }))
      .then((info): ServerEngine => ('ferretdbVersion' in info ? 'ferretdb' : 'mongodb'));
    engines.set(connection, known);
    known.catch(() => engines.delete(connection));
  }
  return known;
}
