import { DATABASE_PROBE } from '../constants.js';
import { Controller, Get, Header, Inject, type Type } from '@nestjs/common';
import type { DatabaseProbe } from './database-probe.js';
import type { HealthBody, HealthRoutes, ReadyBody } from './health-options.interface.js';

/**
 * A fresh controller class per registration: its paths are route metadata on its own handler
 * functions, so two registrations (two connections) never share them.
 */
export function createHealthController({ healthPath, readyPath }: HealthRoutes): Type {
  @Controller()
  class ModelRoutesHealthController {
    constructor(@Inject(DATABASE_PROBE) private readonly probe: DatabaseProbe) {}

    /** Liveness: the process answers; the database is not asked. */
    @Get(healthPath)
    @Header('Cache-Control', 'no-store')
    health(): HealthBody {
      return { status: 'ok' };
    }

    /** Readiness: the database answers `ping` within `readyTimeoutMS`, else a 503 `MR_DATABASE_UNAVAILABLE`. */
    @Get(readyPath)
    @Header('Cache-Control', 'no-store')
    ready(): Promise<ReadyBody> {
      return this.probe.ready();
    }
  }
  return ModelRoutesHealthController;
}
