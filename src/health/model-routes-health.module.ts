import { Module, type DynamicModule } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { DatabaseProbe } from './database-probe.js';
import { createHealthController } from './health.controller.factory.js';
import { DATABASE_PROBE } from '../constants.js';
import type { ModelRoutesHealthOptions } from './health-options.interface.js';
import { type HealthRegistration } from './health.registration.js';
import { MODEL_ROUTES_HEALTH } from '../constants.js';
import { healthSettings } from './health-settings.util.js';

/**
 * Opt-in liveness and readiness routes, for an orchestrator's probes (Kubernetes, a load
 * balancer). `GET /health` answers `{ status: 'ok' }` without asking the database; `GET /ready`
 * answers `{ status: 'ok', database: { pingMs } }` when the database answers `ping` within
 * `readyTimeoutMS` (default 1000 ms), else a 503 `MR_DATABASE_UNAVAILABLE` in the library's error
 * shape, within that bound. Nothing is registered unless the app imports it.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     MongooseModule.forRoot(process.env.MONGODB_URI),
 *     ModelRoutesModule.forRoot({ resources: [Company] }),
 *     ModelRoutesHealthModule.forRoot({ readyTimeoutMS: 500 }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 *
 * @publicApi
 */
@Module({})
export class ModelRoutesHealthModule {
  /**
   * The two routes, on the default connection or on `connectionName`. Register it once per
   * connection to probe, each with its own paths. Throws a `ModelRoutesConfigError`
   * (`MR_CONFIG_INVALID_OPTION`) for a path that is not literal or a timeout that is not a
   * positive whole number.
   */
  static forRoot(options: ModelRoutesHealthOptions = {}): DynamicModule {
    const settings = healthSettings(options);
    const controller = createHealthController(settings);
    return {
      module: ModelRoutesHealthModule,
      controllers: [controller],
      providers: [
        {
          provide: DATABASE_PROBE,
          useFactory: (connection: Connection) => new DatabaseProbe(connection, settings.readyTimeoutMS),
          inject: [getConnectionToken(settings.connectionName)],
        },
        { provide: MODEL_ROUTES_HEALTH, useValue: { ...settings, controller } satisfies HealthRegistration },
      ],
    };
  }
}
