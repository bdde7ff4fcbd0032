/**
 * `nestjs-model-routes/embedded`: the embedded database for development and tests. A separate
 * entry, so that the main one never loads the code that starts processes.
 */
export { EmbeddedDatabaseError, type EmbeddedDatabaseErrorReason } from './embedded-database.error.js';
export { EmbeddedDatabaseModule, type EmbeddedDatabaseTestingOptions } from './embedded-database.module.js';
export type { EmbeddedDatabaseBackendName, EmbeddedDatabaseOptions } from './embedded-database.options.js';
export { EmbeddedDatabase } from './embedded-database.js';
export { DataDirInUseError, type DataDirHolder } from './engine/data-dir-lock.js';
export { startEmbeddedDatabase } from './start-embedded-database.js';
