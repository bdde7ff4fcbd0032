import { MODEL_ROUTES_HEALTH } from '../constants.js';
import type { Type } from '@nestjs/common';
import type { ModulesContainer } from '@nestjs/core';
import type { HealthSettings } from './health-options.interface.js';

/** What one `ModelRoutesHealthModule.forRoot()` or `forRootAsync()` built: its settings in force and the controller that serves them. */
export interface HealthRegistration extends HealthSettings {
  readonly controller: Type;
}

/** Every registration of `ModelRoutesHealthModule` in an application (for the OpenAPI document). */
export function healthRegistrations(modules: ModulesContainer): HealthRegistration[] {
  const found: HealthRegistration[] = [];
  for (const module of modules.values()) {
    const registration = module.providers.get(MODEL_ROUTES_HEALTH)?.instance as HealthRegistration | undefined;
    if (registration) found.push(registration);
  }
  return found;
}
