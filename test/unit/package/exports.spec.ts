import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readManual } from '../../support/docs.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function exportsSpec(): void {
  /**
   * The public API, pinned: a name added to or removed from src/index.ts fails here until this list
   * (and the manual, README.md and docs/, which documents each value) says so. Types are erased at run time; the values
   * below are what a JavaScript user can import.
   */
  const PUBLIC_VALUES = [
    'CONFIG_ERROR_CODES',
    'DEFAULT_SEARCH_OPTIONS',
    'ERROR_CODES',
    'FileProp',
    'FileRef',
    'FileRefSchema',
    'GeneratedController',
    'GeneratedDto',
    'GeneratedResource',
    'InjectModelRepository',
    'ModelRepository',
    'ModelRoutesConfigError',
    'ModelRoutesException',
    'ModelRoutesExceptionFilter',
    'ModelRoutesExplorer',
    'ModelRoutesHealthModule',
    'ModelRoutesModule',
    'checkWriteBody',
    'etagOf',
    'formatRouteTable',
    'getModelRepositoryToken',
    'parseSearchBody',
    'parseSearchQueryString',
    'runWithRequest',
    'RowScopeInterceptor',
    'sanitizeFilter',
  ];

  describe('the public API (src/index.ts)', () => {
    it('exports exactly the pinned values', async () => {
      const library = await import('../../../src/index.js');
      expect(Object.keys(library).sort()).toEqual([...PUBLIC_VALUES].sort());
    });

    it.each(PUBLIC_VALUES)('the manual (README.md, docs/) documents %s', (name) => {
      expect(readManual()).toMatch(new RegExp(`\\b${name}\\b`));
    });

    it('exports constants frozen, so no import can change the behaviour of the routes', async () => {
      const { CONFIG_ERROR_CODES, DEFAULT_SEARCH_OPTIONS, ERROR_CODES } = await import('../../../src/index.js');
      for (const value of [CONFIG_ERROR_CODES, DEFAULT_SEARCH_OPTIONS, ERROR_CODES]) expect(Object.isFrozen(value)).toBe(true);
    });
  });

  /** `nestjs-model-routes/embedded`: the code that starts processes, which the main entry never loads (issue 42). */
  describe('the embedded database entry (src/embedded/index.ts)', () => {
    it('exports the start function, the module, the database token and the errors', async () => {
      const entry = await import('../../../src/embedded/index.js');
      expect(Object.keys(entry).sort()).toEqual([
        'DataDirInUseError',
        'EmbeddedDatabase',
        'EmbeddedDatabaseError',
        'EmbeddedDatabaseModule',
        'startEmbeddedDatabase',
      ]);
    });

    it.each(['EmbeddedDatabase', 'EmbeddedDatabaseError', 'EmbeddedDatabaseModule', 'startEmbeddedDatabase', 'DataDirInUseError'])(
      'the manual (README.md, docs/) documents %s',
      (name) => {
        expect(readManual()).toMatch(new RegExp(`\\b${name}\\b`));
      },
    );

    it('is the ./embedded export of the package, which ships the script that builds FerretDB', () => {
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
      expect(pkg.exports['./embedded']).toEqual({ types: './dist/embedded/index.d.ts', import: './dist/embedded/index.js' });
      expect(pkg.files).toContain('scripts/build-ferretdb.sh');
    });
  });

  /** `nestjs-model-routes/back-office`: opt-in, so the main entry never loads it. */
  describe('the back office entry (src/back-office/index.ts)', () => {
    it('exports BackOfficeModule only (its options and metadata are types)', async () => {
      const entry = await import('../../../src/back-office/index.js');
      expect(Object.keys(entry)).toEqual(['BackOfficeModule']);
    });

    it('is the ./back-office export of the package, and nothing outside src/back-office/ imports it', () => {
      const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'));
      expect(pkg.exports['./back-office']).toEqual({ types: './dist/back-office/index.d.ts', import: './dist/back-office/index.js' });
      const src = fileURLToPath(new URL('../../../src/', import.meta.url));
      const importers = (readdirSync(src, { recursive: true }) as string[])
        .filter((file) => file.endsWith('.ts') && !file.startsWith('back-office'))
        .filter((file) => /from '(\.\.?\/)+back-office\//.test(readFileSync(join(src, file), 'utf8')));
      expect(importers).toEqual([]);
    });
  });
}
