import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import {
  checkAccessibility,
  describeBrowser,
  launchBrowser,
  PageProblems,
  RequestLog,
  runAxe,
  screenshot,
  SCREENSHOT_DIR,
  VIEWPORTS,
} from '../../support/browser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function browserHarnessSpec(): void {
  /**
   * The browser harness itself (test/support/browser.ts), on a tiny page served by node:http with the
   * back office's CSP: the browser starts, axe-core runs under that CSP and reports what it must, the
   * request log sees the page's requests, screenshots land where docs/back-office.md's come from.
   */

  /** The back office's Content-Security-Policy. */
  const CSP =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
    "frame-ancestors 'none'";

  // A 1×1 PNG.
  const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

  const page = (body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Harness</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/admin/app.css">
<script src="/admin/app.js" defer></script>
</head>
<body>${body}</body>
</html>`;

  const CLEAN = page(`
<header><h1>Companies</h1></header>
<nav aria-label="Resources"><ul><li><a href="/admin/companies">Companies</a></li></ul></nav>
<main>
  <img src="/admin/logo.png" alt="Acme logo" width="32" height="32">
  <label for="name">Name</label> <input id="name" name="name" required>
  <p id="status">loading</p>
</main>`);

  // Two serious-or-worse violations: an image without a text alternative, an input without a label.
  const FLAWED = page(`
<main>
  <h1>Flawed</h1>
  <img src="/admin/logo.png">
  <input name="unnamed">
</main>`);

  // What the page's script does: one request on a route, one with an encoded id on a route, one on none.
  const APP_JS = `
fetch('/companies?limit=1').then((response) => response.json()).then((body) => {
  document.getElementById('status').textContent = 'loaded ' + body.count;
});
fetch('/company/acme%20corp');
fetch('/not-a-route');
`;

  const APP_CSS = 'body { font: 16px/1.4 sans-serif; color: #111; background: #fff; } :focus-visible { outline: 3px solid #0050b3; }';

  describeBrowser('browser test harness', () => {
    let server: Server;
    let base: string;
    let browser: Browser;
    const served: string[] = [];

    beforeAll(async () => {
      server = createServer((request, response) => {
        served.push(`${request.method} ${request.url}`);
        const send = (status: number, type: string, body: string | Buffer) => {
          response.writeHead(status, { 'content-type': type, 'content-security-policy': CSP, 'cache-control': 'no-store' });
          response.end(body);
        };
        const path = request.url ?? '/';
        if (path === '/admin') return send(200, 'text/html; charset=utf-8', CLEAN);
        if (path === '/admin/flawed') return send(200, 'text/html; charset=utf-8', FLAWED);
        if (path === '/admin/app.js') return send(200, 'text/javascript', APP_JS);
        if (path === '/admin/app.css') return send(200, 'text/css', APP_CSS);
        if (path === '/admin/logo.png') return send(200, 'image/png', PIXEL);
        if (path.startsWith('/companies')) return send(200, 'application/json', JSON.stringify({ count: 1, match_count: 1, data: [] }));
        return send(404, 'application/json', '{"statusCode":404}');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => server?.close(resolve));
    });

    async function open(path: string): Promise<{ tab: Page; log: RequestLog; problems: PageProblems }> {
      const tab = await browser.newPage({ viewport: VIEWPORTS.desktop });
      const log = new RequestLog(tab, base);
      const problems = new PageProblems(tab);
      await tab.goto(`${base}${path}`);
      return { tab, log, problems };
    }

    it("runs Debian's chromium headless", () => {
      expect(browser.isConnected()).toBe(true);
      expect(browser.version()).toMatch(/^\d+\./);
    });

    it("runs the page's own script under the CSP, which blocks inline scripts", async () => {
      const { tab, log, problems } = await open('/admin');
      try {
        await tab.locator('#status', { hasText: 'loaded 1' }).waitFor();
        await log.waitFor((request) => request.path === '/not-a-route');
        // The 404s of the page's fetches are logged by Chromium and are no problem of the page's.
        expect(problems.list).toEqual([]);

        // Why checkAccessibility does not use addScriptTag: the CSP is in force, and PageProblems sees it.
        await expect(tab.addScriptTag({ content: 'window.injected = 1' })).rejects.toThrow(/Content Security Policy/);
        expect(problems.list).toEqual([
          { kind: 'csp', text: expect.stringMatching(/^Executing inline script violates the following Content Security Policy directive/) },
        ]);
      } finally {
        await tab.close();
      }
    });

    it('passes the accessibility check on a clean page, axe-core running under the CSP', async () => {
      const { tab, problems } = await open('/admin');
      try {
        const report = await checkAccessibility(tab, 'clean page');
        expect(report.blocking).toEqual([]);
        expect(report.passes).toBeGreaterThan(5);
        expect(problems.list).toEqual([]); // axe-core ran without tripping the CSP
        // A second check on the same page does not load axe-core again.
        await expect(checkAccessibility(tab, 'clean page, again')).resolves.toMatchObject({ blocking: [] });
      } finally {
        await tab.close();
      }
    });

    it('records uncaught exceptions of the page', async () => {
      const { tab, problems } = await open('/admin');
      try {
        const thrown = tab.waitForEvent('pageerror');
        await tab.evaluate(() => {
          setTimeout(() => {
            throw new Error('boom in the page');
          });
        });
        await thrown;
        expect(problems.list).toEqual([{ kind: 'pageerror', text: expect.stringContaining('boom in the page') }]);
      } finally {
        await tab.close();
      }
    });

    it('reports serious and critical violations with what to fix', async () => {
      const { tab } = await open('/admin/flawed');
      try {
        const failure = await checkAccessibility(tab, 'flawed page').then(
          () => undefined,
          (error: Error) => error,
        );
        expect(failure).toBeInstanceOf(Error);
        const message = failure!.message;
        expect(message).toMatch(/^flawed page: \d+ accessibility violations?/);
        expect(message).toContain('- image-alt (critical): Images must have alternative text');
        expect(message).toMatch(/at img: <img src="\/admin\/logo.png">/);
        expect(message).toMatch(/- label \(critical\)/);
        expect(message).toMatch(/at input(\[name="unnamed"\])?: <input name="unnamed">/);
        expect(message).toContain('Fix any of the following');

        // The same rules, left out, are no longer reported.
        const report = await runAxe(tab, 'flawed page', { disableRules: ['image-alt', 'label'] });
        expect(report.violations.map((violation) => violation.id)).not.toContain('image-alt');
      } finally {
        await tab.close();
      }
    });

    it("records the page's requests and names those that are no route", async () => {
      const { tab, log } = await open('/admin');
      try {
        await tab.locator('#status', { hasText: 'loaded 1' }).waitFor();
        // Not waitForLoadState('networkidle'): the two fetches whose bodies the page never reads,
        // answered with no-store, stay in flight (RequestLog.waitFor).
        await log.waitFor((request) => request.path === '/not-a-route');
        expect(log.requests.map((request) => `${request.method} ${request.path} ${request.resourceType}`).sort()).toEqual([
          'GET /admin document',
          'GET /admin/app.css stylesheet',
          'GET /admin/app.js script',
          'GET /admin/logo.png image',
          'GET /companies?limit=1 fetch',
          'GET /company/acme%20corp fetch',
          'GET /not-a-route fetch',
        ]);
        const table = [
          { method: 'GET' as const, path: '/companies' },
          { method: 'GET' as const, path: '/company/:company_id' },
        ];
        expect(log.outsideRoutes(table, { allowedPrefixes: ['/admin'] }).map((request) => request.path)).toEqual(['/not-a-route']);
        log.clear();
        expect(log.requests).toEqual([]);
      } finally {
        await tab.close();
      }
    });

    it('saves a screenshot under test-results/back-office', async () => {
      const { tab } = await open('/admin');
      try {
        const path = await screenshot(tab, 'harness-smoke');
        expect(path).toBe(`${SCREENSHOT_DIR}/harness-smoke.png`);
        const png = await readFile(path);
        expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
        expect(png.readUInt32BE(16)).toBe(VIEWPORTS.desktop.width); // IHDR width
        await expect(screenshot(tab, '../escape')).rejects.toThrow(/screenshot name/);
      } finally {
        await tab.close();
      }
    });
  });
}
