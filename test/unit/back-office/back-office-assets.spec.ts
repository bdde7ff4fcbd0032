import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModelRoutesConfigError } from '../../../src/index.js';
import { backOfficeAppDir, loadBackOfficeAssets } from '../../../src/back-office/back-office-assets.js';
import { backOfficePage } from '../../../src/back-office/back-office-page.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeAssetsSpec(): void {
  describe('the back office files', () => {
    let root: string;
    beforeEach(() => {
      root = mkdtempSync(join(tmpdir(), 'back-office-'));
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    it('are in dist/back-office/app of this package, found from the sources as from an installed copy', () => {
      const repository = fileURLToPath(new URL('../../../', import.meta.url));
      expect(backOfficeAppDir()).toBe(join(repository, 'dist', 'back-office', 'app'));
      const installed = join(root, 'app', 'node_modules', 'nestjs-model-routes');
      mkdirSync(join(installed, 'dist', 'back-office'), { recursive: true });
      writeFileSync(join(root, 'app', 'package.json'), JSON.stringify({ name: 'my-app' }));
      writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'nestjs-model-routes' }));
      expect(backOfficeAppDir(join(installed, 'dist', 'back-office'))).toBe(join(installed, 'dist', 'back-office', 'app'));
      expect(backOfficeAppDir(join(root, 'app'))).toBeUndefined();
    });

    it('are the scripts of the directory, read once, and the stylesheet, each with a strong tag', () => {
      writeFileSync(join(root, 'main.js'), 'import "./list.js";');
      writeFileSync(join(root, 'list.js'), 'export const list = [];');
      writeFileSync(join(root, 'types.js'), 'export {};\n');
      writeFileSync(join(root, 'notes.txt'), 'not served');
      writeFileSync(join(root, 'app.css'), 'body { margin: 0; }\n');
      mkdirSync(join(root, 'nested.js'));
      const assets = loadBackOfficeAssets(root);
      expect([...assets.keys()]).toEqual(['list.js', 'main.js', 'app.css']);
      expect(assets.get('main.js')).toEqual({
        body: 'import "./list.js";',
        contentType: 'text/javascript; charset=utf-8',
        etag: expect.stringMatching(/^"[\w-]{27}"$/),
      });
      expect(assets.get('app.css')).toMatchObject({ body: 'body { margin: 0; }\n', contentType: 'text/css; charset=utf-8' });
      expect(assets.get('main.js')!.etag).not.toBe(assets.get('list.js')!.etag);
    });

    it('stop the start when the app is not built, saying how to build it', () => {
      const missing = join(root, 'dist', 'back-office', 'app');
      expect(() => loadBackOfficeAssets(missing)).toThrow(ModelRoutesConfigError);
      expect(() => loadBackOfficeAssets(missing)).toThrow(
        /not built \(no .*dist\/back-office\/app\)\. Run `npm run build:back-office`.*\[MR_CONFIG_INVALID_OPTION\]$/,
      );
      expect(() => loadBackOfficeAssets(undefined)).toThrow(/not built/);
      writeFileSync(join(root, 'list.js'), 'export const list = [];');
      expect(() => loadBackOfficeAssets(root)).toThrow(/has no main\.js\. Run `npm run build:back-office`/);
      writeFileSync(join(root, 'main.js'), 'import "./list.js";');
      expect(() => loadBackOfficeAssets(root)).toThrow(/has no app\.css\. Run `npm run build:back-office`/);
    });

    it('hold the stylesheet of the sources (src/back-office/app/app.css), as the build copies it', () => {
      const source = readFileSync(fileURLToPath(new URL('../../../src/back-office/app/app.css', import.meta.url)), 'utf8');
      expect(loadBackOfficeAssets(backOfficeAppDir()).get('app.css')!.body).toBe(source);
      expect(source).toMatch(/^:root \{/m);
    });
  });

  describe('backOfficePage', () => {
    it('is an empty page that loads the stylesheet, preloads the scripts and runs main.js, all under the base, and says how credentials are sent', () => {
      expect(backOfficePage('/api/admin', 'Data & <co>', ['list.js', 'main.js', 'metadata.js'], { header: 'authorization', scheme: 'Bearer' })).toBe(
        [
          '<!doctype html>',
          '<html lang="en">',
          '<head>',
          '<meta charset="utf-8">',
          '<meta name="viewport" content="width=device-width, initial-scale=1">',
          '<title>Data &#38; &#60;co&#62;</title>',
          '<link rel="icon" href="data:,">',
          '<meta name="model-routes-auth-header" content="authorization">',
          '<meta name="model-routes-auth-scheme" content="Bearer">',
          '<link rel="stylesheet" href="/api/admin/assets/app.css">',
          '<link rel="modulepreload" href="/api/admin/assets/list.js">',
          '<link rel="modulepreload" href="/api/admin/assets/metadata.js">',
          '<script type="module" src="/api/admin/assets/main.js"></script>',
          '</head>',
          '<body>',
          '<noscript>The back office is a JavaScript application: enable JavaScript to use it.</noscript>',
          '</body>',
          '</html>',
          '',
        ].join('\n'),
      );
    });

    it('leaves the scheme out when the credential is sent alone', () => {
      const page = backOfficePage('/admin', 'Admin', ['main.js'], { header: 'x-api-key' });
      expect(page).toContain('<meta name="model-routes-auth-header" content="x-api-key">');
      expect(page).not.toContain('model-routes-auth-scheme');
    });
  });
}
