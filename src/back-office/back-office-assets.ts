import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';

/** One file the back office serves under `<path>/assets/`, read once. */
export interface BackOfficeAsset {
  body: string;
  contentType: string;
  /** Strong entity tag of `body`, quotes included. */
  etag: string;
}

const PACKAGE_NAME = 'nestjs-model-routes';
const SCRIPT = 'text/javascript; charset=utf-8';
const STYLESHEET = 'app.css';

/**
 * Where the built browser app is: `dist/back-office/app/` of this package, found by walking up
 * from this file to the package's `package.json`. The same rule works for the installed package
 * (`dist/back-office/`), the sources run by ts-jest (`src/back-office/`) and the compiled sample
 * (`dist-sample/src/back-office/`).
 */
export function backOfficeAppDir(from: string = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && readName(manifest) === PACKAGE_NAME) return join(dir, 'dist', 'back-office', 'app');
    if (dirname(dir) === dir) return undefined;
  }
}

function readName(manifest: string): unknown {
  try {
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
  } catch {
    return undefined;
  }
}

/**
 * The browser app's scripts (every `*.js` file of `dir`) and its stylesheet (`app.css`, copied
 * there from `src/back-office/app/app.css` by the build), by file name: the only files the asset
 * route serves, so no request path reaches the file system.
 * Throws a `ModelRoutesConfigError` when the app was not built.
 */
export function loadBackOfficeAssets(dir: string | undefined): ReadonlyMap<string, BackOfficeAsset> {
  if (!dir || !existsSync(dir)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `BackOfficeModule: the back office's browser app is not built (no ${dir ?? `dist/back-office/app/ in the ${PACKAGE_NAME} package`}). ` +
        'Run `npm run build:back-office` (or `npm run build`) in nestjs-model-routes, or reinstall the package.',
    );
  }
  const assets = new Map<string, BackOfficeAsset>();
  const scripts = readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.js'));
  for (const name of scripts.map((entry) => entry.name).sort()) {
    const body = readFileSync(join(dir, name), 'utf8');
    // A module of types only (metadata.ts) compiles to nothing: the page neither loads nor preloads it.
    if (body.trim() !== 'export {};') assets.set(name, asset(body, SCRIPT));
  }
  if (!assets.has('main.js')) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `BackOfficeModule: the back office's browser app in ${dir} has no main.js. Run \`npm run build:back-office\`.`,
    );
  }
  const stylesheet = join(dir, STYLESHEET);
  if (!existsSync(stylesheet)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `BackOfficeModule: the back office's browser app in ${dir} has no ${STYLESHEET}. Run \`npm run build:back-office\`.`,
    );
  }
  assets.set(STYLESHEET, asset(readFileSync(stylesheet, 'utf8'), 'text/css; charset=utf-8'));
  return assets;
}

function asset(body: string, contentType: string): BackOfficeAsset {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
