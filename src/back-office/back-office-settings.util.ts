import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { BackOfficeExtras, BackOfficeOptions, BackOfficeSettings, ResolvedBackOfficeOptions } from './back-office-options.interface.js';

const OPTIONS = new Set(['path', 'title', 'auth', 'guards']);
/** The options `forRootAsync()`'s factory may compute. */
const SETTINGS = new Set(['title', 'auth']);
/** An HTTP token (RFC 9110 section 5.6.2): what a header name, or an auth scheme, may be made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The options with their defaults, or the configuration error that names the option and the fix. */
export function backOfficeSettings(options: BackOfficeOptions = {}): ResolvedBackOfficeOptions {
  if (typeof options !== 'object' || options === null) throw invalid(`give an object of options, such as { path: '/admin' } (got ${String(options)}).`);
  const unknown = Object.keys(options).filter((key) => !OPTIONS.has(key));
  if (unknown.length) throw invalid(`unknown option ${unknown.map((key) => `'${key}'`).join(', ')}; the options are ${[...OPTIONS].join(', ')}.`);
  return { ...backOfficeRoutes(options), ...backOfficeDisplay({ title: options.title, auth: options.auth }) };
}

/** The extras (what shapes the routes) with their defaults, checked when the module is declared. */
export function backOfficeRoutes(extras: BackOfficeExtras): Pick<ResolvedBackOfficeOptions, 'path' | 'guards'> {
  return { path: literalPath(extras.path ?? '/admin'), guards: guards(extras.guards) };
}

/**
 * The settings (given to `forRoot()`, or computed by `forRootAsync()`'s factory when the app
 * starts) with their defaults, checked: a factory's object may hold only settings.
 */
export function backOfficeDisplay(settings: BackOfficeSettings | undefined): Pick<ResolvedBackOfficeOptions, 'title' | 'auth'> {
  if (typeof settings !== 'object' || settings === null)
    throw invalid(`the settings' factory gave ${String(settings)}; give an object such as { title: 'Admin' }.`);
  const unknown = Object.keys(settings).filter((key) => !SETTINGS.has(key) && (settings as Record<string, unknown>)[key] !== undefined);
  if (unknown.length) {
    throw invalid(
      `unknown setting ${unknown.map((key) => `'${key}'`).join(', ')}; the settings are ${[...SETTINGS].join(', ')} (path and guards are given to ` +
        `forRootAsync() itself).`,
    );
  }
  const title = settings.title ?? 'Back office';
  if (typeof title !== 'string' || !title.trim()) throw invalid(`title is ${JSON.stringify(title)}; give the page's title, a non-empty string.`);
  return { title: title.trim(), auth: auth(settings.auth) };
}

/** A literal path without its outer slashes: no parameter or wildcard, which would make the page match other requests. */
function literalPath(value: unknown): string {
  const path = typeof value === 'string' ? value.replace(/^\/+|\/+$/g, '') : '';
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/.test(path)) {
    throw invalid(`path is ${JSON.stringify(value)}; give a literal path such as '/admin' or '/tools/data' (letters, digits, '-', '_' and '/').`);
  }
  return path;
}

function auth(value: BackOfficeOptions['auth']): ResolvedBackOfficeOptions['auth'] {
  if (value === undefined) return { header: 'authorization', scheme: 'Bearer' };
  const { header, scheme } = (value ?? {}) as Partial<NonNullable<BackOfficeOptions['auth']>>;
  if (typeof header !== 'string' || !TOKEN.test(header)) {
    throw invalid(`auth.header is ${JSON.stringify(header)}; give the name of an HTTP header, such as 'authorization' or 'x-api-key'.`);
  }
  if (scheme !== undefined && (typeof scheme !== 'string' || !TOKEN.test(scheme))) {
    throw invalid(`auth.scheme is ${JSON.stringify(scheme)}; give one word such as 'Bearer', or leave it out to send the value alone.`);
  }
  return { header: header.toLowerCase(), ...(scheme !== undefined && { scheme }) };
}

function guards(value: BackOfficeOptions['guards']): ResolvedBackOfficeOptions['guards'] {
  if (value === undefined) return [];
  const isGuard = (guard: unknown) =>
    typeof guard === 'function' || (typeof guard === 'object' && guard !== null && typeof (guard as { canActivate?: unknown }).canActivate === 'function');
  if (!Array.isArray(value) || !value.every(isGuard)) {
    throw invalid('guards must be an array of guard classes or instances (objects with canActivate()), as @UseGuards() takes.');
  }
  return [...value];
}

function invalid(message: string): ModelRoutesConfigError {
  return new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `BackOfficeModule.forRoot(): ${message}`);
}
