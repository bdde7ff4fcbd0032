import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { HealthRoutes, HealthSettings, ModelRoutesHealthExtras, ModelRoutesHealthOptions, ModelRoutesHealthSettings } from './health-options.interface.js';

export const DEFAULT_READY_TIMEOUT_MS = 1000;

/** The options with their defaults, or the configuration error that names the option and the fix. */
export function healthSettings(options: ModelRoutesHealthOptions = {}): HealthSettings {
  return { ...healthRoutes(options), ...healthTimeouts(options) };
}

/** The extras (what shapes the routes) with their defaults, checked when the module is declared. */
export function healthRoutes(extras: ModelRoutesHealthExtras): HealthRoutes {
  const healthPath = routePath('healthPath', extras.healthPath ?? 'health');
  const readyPath = routePath('readyPath', extras.readyPath ?? 'ready');
  if (healthPath === readyPath) throw invalid(`healthPath and readyPath are both '${healthPath}'; give them different paths.`);
  return { healthPath, readyPath, connectionName: extras.connectionName };
}

/** The settings (given to `forRoot()`, or computed by `forRootAsync()`'s factory when the app starts) with their defaults, checked. */
export function healthTimeouts(settings: ModelRoutesHealthSettings | undefined): Required<ModelRoutesHealthSettings> {
  const readyTimeoutMS = settings?.readyTimeoutMS ?? DEFAULT_READY_TIMEOUT_MS;
  if (!Number.isSafeInteger(readyTimeoutMS) || readyTimeoutMS < 1) {
    throw invalid(`readyTimeoutMS is ${String(readyTimeoutMS)}; give a whole number of milliseconds, 1 or more (default ${DEFAULT_READY_TIMEOUT_MS}).`);
  }
  return { readyTimeoutMS };
}

/** A literal path without its outer slashes: no parameter, wildcard or empty segment, which would make a probe match other requests. */
function routePath(option: string, value: string): string {
  const path = typeof value === 'string' ? value.replace(/^\/+|\/+$/g, '') : '';
  const literal = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/.test(path) && !path.split('/').some((segment) => /^\.+$/.test(segment));
  if (!literal) {
    throw invalid(`${option} is '${String(value)}'; give a literal path such as 'health' or 'status/ready' (letters, digits, '.', '_', '~', '-' and '/').`);
  }
  return path;
}

function invalid(message: string): ModelRoutesConfigError {
  return new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `ModelRoutesHealthModule: ${message}`);
}
