import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown, type Provider } from '@nestjs/common';
import { MongooseModule, type MongooseModuleOptions } from '@nestjs/mongoose';
import mongoose from 'mongoose';
import { EmbeddedDatabase } from './embedded-database.js';
import type { EmbeddedDatabaseOptions } from './embedded-database.options.js';
import { startEmbeddedDatabase } from './start-embedded-database.js';

/**
 * Options of `EmbeddedDatabaseModule.forTesting()`: those of `forRoot()`, and Mongoose's connection.
 *
 * @publicApi
 */
export interface EmbeddedDatabaseTestingOptions extends EmbeddedDatabaseOptions {
  /** The database Mongoose uses. Default: `test`. */
  dbName?: string;
  /** More of Mongoose's connection options (timeouts, pool size). */
  connection?: Omit<MongooseModuleOptions, 'uri' | 'dbName'>;
}

/**
 * Starts the embedded database when the app initialises, provides it as `EmbeddedDatabase` (to
 * every module: it is global), and stops it when the app shuts down (`app.close()`, or a signal
 * after `app.enableShutdownHooks()`).
 *
 * @example
 * imports: [
 *   EmbeddedDatabaseModule.forRoot({ dataDir: '.data', uri: process.env.MONGODB_URI }),
 *   MongooseModule.forRootAsync({ inject: [EmbeddedDatabase], useFactory: (db: EmbeddedDatabase) => ({ uri: db.uri, dbName: 'app' }) }),
 *   ModelRoutesModule.forRoot({ resources: [Company] }),
 * ]
 *
 * @publicApi
 */
@Global()
@Module({})
export class EmbeddedDatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(EmbeddedDatabase) private readonly database: EmbeddedDatabase) {}

  /** The embedded database of `startEmbeddedDatabase(options)`, as the provider `EmbeddedDatabase`. */
  static forRoot(options: EmbeddedDatabaseOptions = {}): DynamicModule {
    return { module: EmbeddedDatabaseModule, providers: [databaseProvider(options)], exports: [EmbeddedDatabase] };
  }

  /**
   * For `@nestjs/testing`: an embedded database in a temporary folder (unless `dataDir`), quiet
   * (unless `log`), with Mongoose connected to it; both stop on `app.close()` (or `moduleRef.close()`).
   *
   * @example
   * const moduleRef = await Test.createTestingModule({
   *   imports: [EmbeddedDatabaseModule.forTesting(), ModelRoutesModule.forRoot({ resources: [Company] })],
   * }).compile();
   */
  static forTesting(options: EmbeddedDatabaseTestingOptions = {}): DynamicModule {
    const { dbName = 'test', connection, ...start } = options;
    return {
      module: EmbeddedDatabaseModule,
      imports: [
        MongooseModule.forRootAsync({
          inject: [EmbeddedDatabase],
          useFactory: (database: EmbeddedDatabase) => ({ ...connection, uri: database.uri, dbName }),
        }),
      ],
      providers: [databaseProvider({ log: false, ...start })],
      exports: [EmbeddedDatabase, MongooseModule],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.database.embedded) {
      // Nest shuts modules down in an order this module does not choose (MongooseModule's may come
      // after this one), and a driver left connected to a stopped server waits for it, so the
      // Mongoose connections to this engine close first; Mongoose's own close is then a no-op.
      const port = Number(new URL(this.database.uri).port);
      await Promise.all(mongoose.connections.filter((connection) => Number(connection.port) === port && connection.readyState !== 0).map((c) => c.close()));
    }
    await this.database.stop();
  }
}

function databaseProvider(options: EmbeddedDatabaseOptions): Provider {
  return { provide: EmbeddedDatabase, useFactory: () => startEmbeddedDatabase(options) };
}
