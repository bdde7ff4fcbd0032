import { existsSync, statfsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ImpactValue, Result as AxeRuleResult, RunOptions as AxeRunOptions } from 'axe-core';
import { chromium, type Browser, type ConsoleMessage, type LaunchOptions, type Page, type PageScreenshotOptions, type Request } from 'playwright-core';
import type { RouteDefinition } from '../../src/interfaces/route-definition.interface.js';

/*
 * The browser tests' harness: Debian's chromium driven by playwright-core (no browser download),
 * axe-core's accessibility check, the requests a page made held against a route table, screenshots.
 */

/** The browser binary: `CHROMIUM_PATH` from the environment, else Debian's `/usr/bin/chromium`. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The flags every test browser gets. playwright-core adds its own on top (with `headless: true`:
 * `--headless`, `--hide-scrollbars`, `--mute-audio`, `--no-sandbox` and its automation switches);
 * a flag given twice is harmless, and these are stated so the launch does not depend on its defaults.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The two widths the back office must work at (issue 15): a laptop and a phone. */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
} as const;

/** Set (to anything but `''` or `0`) by `.ci/run`: a missing browser fails the run instead of skipping the browser tests. */
export const REQUIRE_BROWSER_ENV = 'MODEL_ROUTES_REQUIRE_BROWSER';

/**
 * Why the browser tests cannot run here, or `undefined` when they can: the reason when no
 * executable is at `CHROMIUM_PATH`. For a counted skip that states its reason:
 *
 * ```ts
 * const reason = browserSkipReason();
 * const describeBrowser = reason ? describe.skip : describe;
 * describeBrowser(`the back office${reason ? ` (skipped: ${reason})` : ''}`, () => { ... });
 * ```
 *
 * Throws instead when `MODEL_ROUTES_REQUIRE_BROWSER` is set (CI), so a spec file that cannot
 * get its browser fails there rather than skipping.
 */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `no browser at ${CHROMIUM_PATH} (install Debian's chromium package, or set CHROMIUM_PATH)`;
  const required = process.env[REQUIRE_BROWSER_ENV];
  if (required && required !== '0') {
    throw new Error(`${reason}, and ${REQUIRE_BROWSER_ENV}=${required} says the browser tests must run, not skip`);
  }
  return reason;
}

/**
 * `describe` for browser tests: the block runs when `browserSkipReason()` finds the browser; else
 * it is a counted skip whose title holds the reason, and the reason is printed (Jest lists no
 * titles of a file whose tests are all skipped). In CI (`MODEL_ROUTES_REQUIRE_BROWSER`) a missing
 * browser fails the file instead.
 */
export function describeBrowser(title: string, fn: () => void): void {
  const reason = browserSkipReason();
  if (!reason) return describe(title, fn);
  process.stderr.write(`browser tests skipped: ${title}: ${reason}\n`);
  describe.skip(`${title} (skipped: ${reason})`, fn);
}

/**
 * `--disable-dev-shm-usage` when `/dev/shm` is small (containers often give it 64 MB), where
 * Chromium crashes on large pages. Debian's `/usr/bin/chromium` wrapper means to add it itself
 * (/etc/chromium.d/dev-shm), but its test breaks when `findmnt` prints two lines (stacked mounts:
 * the "[: ...: unexpected operator" on its stderr), so it is decided here.
 */
function sharedMemoryArgs(): string[] {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    return bavail * bsize < 1024 ** 3 ? ['--disable-dev-shm-usage'] : [];
  } catch {
    return ['--disable-dev-shm-usage'];
  }
}

/**
 * Starts a headless chromium from `CHROMIUM_PATH` with `CHROMIUM_ARGS` (plus `options.args`).
 * One per spec file, closed in `afterAll`: about 0.2 s to launch here, a page about 0.2 s more.
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    timeout: 30_000,
    ...options,
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...sharedMemoryArgs(), ...(options.args ?? [])],
  });
}

// ---------------------------------------------------------------------------------------------
// Accessibility (axe-core)

/** The rule sets `checkAccessibility` runs: WCAG 2.0 and 2.1, levels A and AA, and axe's best practices. */
export const AXE_TAGS: readonly string[] = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

/** The impacts that fail `checkAccessibility`. */
export const BLOCKING_IMPACTS: readonly ImpactValue[] = ['serious', 'critical'];

/** One rule that failed, on the nodes it failed on (axe's `Result`, without what a report does not need). */
export interface AxeViolation {
  id: string;
  impact: ImpactValue | undefined;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: string; html: string; failureSummary?: string }>;
}

/** What one axe run found: every violation, and how many rules passed and how many need a human. */
export interface AxeReport {
  label: string;
  violations: AxeViolation[];
  /** The violations that fail the check: `BLOCKING_IMPACTS`. */
  blocking: AxeViolation[];
  passes: number;
  incomplete: number;
  /** Milliseconds of the run in the page (injection not included). */
  durationMs: number;
}

/** What `checkAccessibility` and `runAxe` take: what to check (axe's context) and rules to leave out. */
export interface AxeCheckOptions {
  /** CSS selectors to check (the whole document when absent) and to leave out. */
  include?: string[];
  exclude?: string[];
  /** Rule ids not to run, each with a reason in the calling test. */
  disableRules?: string[];
}

let axeSource: Promise<string> | undefined;

/** axe-core's browser build, read once from node_modules. */
function readAxeSource(): Promise<string> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/**
 * Puts axe-core into the page's main world unless it is there already (a navigation removes it).
 *
 * Not `page.addScriptTag({ content })`: that adds an inline `<script>`, which the back office's CSP
 * (`script-src 'self'`) blocks ("Executing inline script violates the following Content Security
 * Policy directive"). Not `bypassCSP: true` either: it would turn the CSP off for the whole context,
 * and the tests would no longer show that the app itself runs under it. `page.evaluate(source)` goes
 * through the DevTools protocol (`Runtime.evaluate`), which a page's CSP does not apply to; axe-core
 * needs neither `eval` nor inline scripts once it is loaded, so it runs under the page's CSP.
 */
async function injectAxe(page: Page): Promise<void> {
  if (await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object')) return;
  await page.evaluate(await readAxeSource());
}

/**
 * Runs axe-core (`AXE_TAGS`) on the page as it is now and reports every violation, without
 * failing on any: `checkAccessibility` is the assertion.
 */
export async function runAxe(page: Page, label: string, options: AxeCheckOptions = {}): Promise<AxeReport> {
  await injectAxe(page);
  const runOptions: AxeRunOptions = {
    runOnly: { type: 'tag', values: [...AXE_TAGS] },
    resultTypes: ['violations'],
    rules: Object.fromEntries((options.disableRules ?? []).map((id) => [id, { enabled: false }])),
  };
  const context = options.include || options.exclude ? { include: options.include ?? [':root'], exclude: options.exclude ?? [] } : undefined;
  const found = await page.evaluate(
    async ({ context, runOptions }) => {
      type Axe = { run(context: unknown, options: unknown): Promise<{ violations: AxeRuleResult[]; passes: unknown[]; incomplete: unknown[] }> };
      const axe = (globalThis as unknown as { axe: Axe }).axe;
      const started = performance.now();
      const results = context ? await axe.run(context, runOptions) : await axe.run((globalThis as unknown as { document: unknown }).document, runOptions);
      return {
        durationMs: performance.now() - started,
        passes: results.passes.length,
        incomplete: results.incomplete.length,
        // Only what a report needs crosses back: axe's results hold every node's HTML and check data.
        violations: results.violations.map((rule) => ({
          id: rule.id,
          impact: rule.impact,
          help: rule.help,
          helpUrl: rule.helpUrl,
          nodes: rule.nodes.map((node) => ({
            target: node.target.map((part) => (Array.isArray(part) ? part.join(' >>> ') : String(part))).join(' '),
            html: node.html,
            failureSummary: node.failureSummary,
          })),
        })),
      };
    },
    { context, runOptions },
  );
  const blocking = found.violations.filter((violation) => BLOCKING_IMPACTS.includes(violation.impact ?? null));
  return { label, ...found, blocking };
}

/**
 * Violations as text a failing test can be fixed from: per rule its id, impact, help text and
 * link, then its first `maxNodes` nodes' selectors, HTML and axe's failure summary.
 */
export function formatViolations(label: string, violations: readonly AxeViolation[], maxNodes = 3): string {
  const lines = [`${label}: ${violations.length} accessibility violation${violations.length === 1 ? '' : 's'}`];
  for (const violation of violations) {
    lines.push(`- ${violation.id} (${violation.impact ?? 'no impact'}): ${violation.help} [${violation.helpUrl}]`);
    for (const node of violation.nodes.slice(0, maxNodes)) {
      lines.push(`    at ${node.target}: ${node.html.length > 160 ? `${node.html.slice(0, 157)}...` : node.html}`);
      for (const summary of (node.failureSummary ?? '').split('\n').filter(Boolean)) lines.push(`      ${summary.trimEnd()}`);
    }
    if (violation.nodes.length > maxNodes) lines.push(`    ...and ${violation.nodes.length - maxNodes} more node(s)`);
  }
  return lines.join('\n');
}

/**
 * The accessibility check of one screen: axe-core with `AXE_TAGS` on the page as it is now, under
 * the page's own CSP (see `injectAxe`). Throws, with `formatViolations`' text, when a violation is
 * `serious` or `critical`; otherwise returns the report (whose `violations` may still list minor
 * and moderate ones). `label` names the screen in the message: `'company list (390 px)'`.
 */
export async function checkAccessibility(page: Page, label: string, options: AxeCheckOptions = {}): Promise<AxeReport> {
  const report = await runAxe(page, label, options);
  if (report.blocking.length > 0) throw new Error(formatViolations(label, report.blocking));
  return report;
}

// ---------------------------------------------------------------------------------------------
// Requests against the route table

/** One request a page made. */
export interface RecordedRequest {
  method: string;
  /** Path and query as sent, percent-encoded: `/company/abc?fields=name`. */
  path: string;
  /** playwright's resource type: `document`, `script`, `stylesheet`, `image`, `fetch`, `xhr`, ... */
  resourceType: string;
  /** The full URL, and whether it is on the app's origin. */
  url: string;
  sameOrigin: boolean;
}

/** What a request may be besides a route of the table. */
export interface RouteMatchOptions {
  /**
   * Paths whose requests are the page's own (the back office's `base`, e.g. `/admin`: its page,
   * assets and metadata): a prefix covers itself and what is under it (`/admin`, `/admin/`,
   * `/admin/app.js`), not `/administrators`. Given as the browser sees them (with any global prefix).
   */
  allowedPrefixes?: readonly string[];
  /** The app's global prefix (`app.setGlobalPrefix('api')`), which the table's paths do not hold: `'/api'` or `'api'`. */
  globalPrefix?: string;
}

/** `'api'`, `'/api'`, `'/api/'` → `'/api'`; `''` and `'/'` → `''`. */
function normalizePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : '';
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // a malformed escape (`%E0%A4%A`): no route's parameter
  }
}

/** Whether `path` (query allowed) is `prefix` or under it, segment-wise. */
export function isUnderPrefix(path: string, prefix: string): boolean {
  const base = normalizePrefix(prefix);
  const pathname = path.split(/[?#]/, 1)[0];
  return base === '' || pathname === base || pathname.startsWith(`${base}/`);
}

/**
 * Whether a request (`method`, and `path` as sent: percent-encoded, query allowed) is one of
 * `route`: the same number of segments, literal segments equal (URL-decoded), each `:param`
 * matching one non-empty segment that decodes; `HEAD` matches a `GET` route, and an `ALL` route
 * any method. Only literal and `:param` segments are understood, as the generated routes have.
 */
export function matchesRoute(route: Pick<RouteDefinition, 'method' | 'path'>, method: string, path: string, globalPrefix = ''): boolean {
  const verb = method.toUpperCase();
  if (!(route.method === 'ALL' || route.method === verb || (verb === 'HEAD' && route.method === 'GET'))) return false;
  const expected = `${normalizePrefix(globalPrefix)}${route.path}`.split('/').slice(1);
  const actual = path.split(/[?#]/, 1)[0].split('/').slice(1);
  if (expected.length !== actual.length) return false;
  return expected.every((part, index) => {
    const segment = decodeSegment(actual[index]);
    if (segment === undefined) return false;
    return part.startsWith(':') ? segment !== '' : segment === part;
  });
}

/**
 * The requests that are neither under an allowed prefix nor a route of `table`: what a test of
 * "every request the app makes is one of the generated routes" expects to be empty. A request to
 * another origin is always among them (no route of the app can serve it).
 */
export function requestsOutsideRoutes(
  requests: readonly RecordedRequest[],
  table: readonly Pick<RouteDefinition, 'method' | 'path'>[],
  options: RouteMatchOptions = {},
): RecordedRequest[] {
  const allowed = options.allowedPrefixes ?? [];
  return requests.filter(
    (request) =>
      !request.sameOrigin ||
      !(
        allowed.some((prefix) => isUnderPrefix(request.path, prefix)) ||
        table.some((route) => matchesRoute(route, request.method, request.path, options.globalPrefix))
      ),
  );
}

/**
 * Records every request a page makes (`page.on('request')`): method, path and query, resource type.
 * `data:` and `blob:` URLs are not requests to anyone and are left out; other origins are kept,
 * marked `sameOrigin: false`. Chromium's own `/favicon.ico` probe is not reported by playwright,
 * so it is not here (the server sees it).
 *
 * ```ts
 * const log = new RequestLog(page, baseUrl);
 * ... the scenario ...
 * expect(log.outsideRoutes(app.get(ModelRoutesExplorer).routes(), { allowedPrefixes: ['/admin'] })).toEqual([]);
 * ```
 */
export class RequestLog {
  /** Every request so far, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly origin: string;
  private readonly listener = (request: Request): void => this.record(request);
  private readonly waiters = new Set<(request: RecordedRequest) => boolean>();

  /** `origin`: the app's base URL (`http://127.0.0.1:4321`, a path after it is ignored). */
  constructor(
    private readonly page: Page,
    origin: string | URL,
  ) {
    this.origin = new URL(origin).origin;
    page.on('request', this.listener);
  }

  private record(request: Request): void {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    const recorded: RecordedRequest = {
      method: request.method(),
      path: `${url.pathname}${url.search}`,
      resourceType: request.resourceType(),
      url: url.href,
      sameOrigin: url.origin === this.origin,
    };
    this.requests.push(recorded);
    for (const waiter of this.waiters) if (waiter(recorded)) this.waiters.delete(waiter);
  }

  /** `requestsOutsideRoutes` of the recorded requests. */
  outsideRoutes(table: readonly Pick<RouteDefinition, 'method' | 'path'>[], options: RouteMatchOptions = {}): RecordedRequest[] {
    return requestsOutsideRoutes(this.requests, table, options);
  }

  /**
   * The first request so far, or the next one, for which `predicate` holds: a wait on what the
   * page asked for. Prefer it (or a wait on what the page shows) to `waitForLoadState('networkidle')`:
   * a fetch whose body the page never reads, answered with `Cache-Control: no-store`, stays in
   * flight in Chromium, and the network is never idle.
   */
  waitFor(predicate: (request: RecordedRequest) => boolean, timeoutMs = 10_000): Promise<RecordedRequest> {
    const found = this.requests.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `no request matching ${predicate.toString()} within ${timeoutMs} ms; requests: ` +
              `${this.requests.map((r) => `${r.method} ${r.path}`).join(', ') || 'none'}`,
          ),
        );
      }, timeoutMs);
      const waiter = (request: RecordedRequest): boolean => {
        if (!predicate(request)) return false;
        clearTimeout(timer);
        resolve(request);
        return true;
      };
      this.waiters.add(waiter);
    });
  }

  /** Forgets the requests so far (e.g. after a setup step). */
  clear(): void {
    this.requests.length = 0;
  }

  /** Stops recording. */
  detach(): void {
    this.page.off('request', this.listener);
  }
}

// ---------------------------------------------------------------------------------------------
// What went wrong in the page

/** One problem a page reported: an uncaught exception, a CSP violation, or another console error. */
export interface PageProblem {
  kind: 'pageerror' | 'csp' | 'console';
  text: string;
}

/**
 * The console lines that are no problem of the app: Chromium logs every 4xx and 5xx answer as
 * "Failed to load resource", and the scenarios cause some on purpose (401, 404, 412).
 */
export const EXPECTED_CONSOLE_ERRORS: readonly RegExp[] = [/^Failed to load resource: the server responded with a status of \d{3}/];

/**
 * Records what went wrong in a page: uncaught exceptions (`pageerror`), CSP violations (Chromium
 * reports them as console errors: "... violates the following Content Security Policy directive
 * ..."), and other console errors, but those matching `ignore` (`EXPECTED_CONSOLE_ERRORS` unless
 * given). A scenario ends with `expect(problems.list).toEqual([])`: the app ran clean under its CSP.
 */
export class PageProblems {
  readonly list: PageProblem[] = [];
  private readonly onConsole = (message: ConsoleMessage): void => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (this.ignore.some((pattern) => pattern.test(text))) return;
    this.list.push({ kind: /Content Security Policy/.test(text) ? 'csp' : 'console', text });
  };
  private readonly onPageError = (error: Error): void => {
    this.list.push({ kind: 'pageerror', text: error.stack ?? String(error) });
  };

  constructor(
    private readonly page: Page,
    private readonly ignore: readonly RegExp[] = EXPECTED_CONSOLE_ERRORS,
  ) {
    page.on('console', this.onConsole);
    page.on('pageerror', this.onPageError);
  }

  /** Forgets the problems so far. */
  clear(): void {
    this.list.length = 0;
  }

  /** Stops recording. */
  detach(): void {
    this.page.off('console', this.onConsole);
    this.page.off('pageerror', this.onPageError);
  }
}

// ---------------------------------------------------------------------------------------------
// Screenshots

/** Where `screenshot` saves: `test-results/back-office/` at the repository's root (git-ignored). */
export const SCREENSHOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../test-results/back-office');

/**
 * Saves a PNG of the page as `SCREENSHOT_DIR/<name>.png` (the folder made when missing) and
 * returns its path. `name`: letters, digits, `.`, `_` and `-` (e.g. `company-list-390`).
 * The viewport unless `options.fullPage`.
 */
export async function screenshot(page: Page, name: string, options: Omit<PageScreenshotOptions, 'path' | 'type'> = {}): Promise<string> {
  if (!/^[\w.-]+$/.test(name) || name.startsWith('.')) throw new Error(`screenshot name ${JSON.stringify(name)}: use letters, digits, '.', '_' and '-'`);
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ ...options, path, type: 'png' });
  return path;
}
