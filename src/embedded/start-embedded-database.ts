import { Logger } from '@nestjs/common';
import { resolve } from 'node:path';
import { EmbeddedDatabaseError } from './embedded-database.error.js';
import { EmbeddedDatabase } from './embedded-database.js';
import type { EmbeddedDatabaseOptions } from './embedded-database.options.js';
import { cacheDir, FERRETDB_VERSION } from './engine/choice.js';
import { canConnect } from './engine/ports.js';
import { startFerretDb } from './engine/start-ferretdb.js';

const BACKENDS = ['auto', 'postgresql', 'sqlite'] as const;

/**
 * Starts the embedded database, FerretDB v1 (a MongoDB-wire-compatible server) on PostgreSQL or
 * SQLite, on 127.0.0.1, for development and tests. The FerretDB binary is built with Go on first use
 * and cached (`~/.cache/nestjs-model-routes`). Refused when `NODE_ENV=production` unless
 * `allowInProduction`; with `uri` set, starts nothing and hands that database on.
 * The engine is also stopped when this process exits, however it exits.
 *
 * @example
 * const db = await startEmbeddedDatabase({ dataDir: '.data' });
 * await mongoose.connect(db.uri, { dbName: 'app' });
 * // ...
 * await mongoose.disconnect();
 * await db.stop();
 *
 * @publicApi
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions = {}): Promise<EmbeddedDatabase> {
  const log = options.log === false ? undefined : (options.log ?? ((line: string) => new Logger('EmbeddedDatabase').log(line)));
  if (options.uri) {
    log?.(`Database: ${redact(options.uri)} (the uri option); no embedded engine started`);
    return new EmbeddedDatabase(options.uri, `external database at ${redact(options.uri)}`, undefined, undefined, async () => undefined);
  }
  const backend = options.backend ?? 'auto';
  if (!(BACKENDS as readonly string[]).includes(backend)) {
    throw new EmbeddedDatabaseError('invalid-option', `startEmbeddedDatabase({ backend: '${backend}' }): expected one of ${BACKENDS.join(', ')}`);
  }
  if (process.env.NODE_ENV === 'production' && !options.allowInProduction) {
    throw new EmbeddedDatabaseError(
      'production',
      'startEmbeddedDatabase() is refused when NODE_ENV=production: the embedded engine (FerretDB v1) is for development and tests, and does not ' +
        'make single-document updates atomic. Connect to MongoDB instead (pass its URI as the uri option, e.g. uri: process.env.MONGODB_URI), or, ' +
        'knowingly, pass allowInProduction: true.',
    );
  }
  if (options.port !== undefined) await checkPort(options.port);
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const engine = await startFerretDb({
    choice: backend === 'auto' ? 'auto' : `ferretdb-${backend}`,
    asked: `startEmbeddedDatabase({ backend: '${backend}' })`,
    dataDir,
    owner: options.owner,
    port: options.port,
  });
  if (!engine) {
    throw new EmbeddedDatabaseError(
      'no-engine',
      `startEmbeddedDatabase(): no FerretDB ${FERRETDB_VERSION} binary, and no 'go' on the PATH to build one. Install Go (https://go.dev/dl/; ` +
        `the first start builds FerretDB from the Go module proxy, once, into ${cacheDir()}), or set FERRETDB_BIN to a FerretDB v1 ` +
        'binary, or connect to a MongoDB server instead (the uri option).',
    );
  }
  log?.(`Embedded database for development and tests: ${engine.description}; it stops with the app`);
  return new EmbeddedDatabase(engine.uri, engine.description, engine.backend, dataDir, () => engine.stop());
}

/** An asked port must be one, and free: FerretDB on a taken port would seem to start (the other server answers). */
async function checkPort(port: number): Promise<void> {
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new EmbeddedDatabaseError('invalid-option', `startEmbeddedDatabase({ port: ${port} }): expected a port number from 1 to 65535`);
  }
  if (await canConnect(port)) {
    throw new EmbeddedDatabaseError(
      'port-in-use',
      `startEmbeddedDatabase({ port: ${port} }): port ${port} of 127.0.0.1 is in use; stop what listens there, or leave port out for a free one`,
    );
  }
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]+@/, '//***@');
}
