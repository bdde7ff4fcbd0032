import type { INestApplication } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';
import type { TestingModule } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { ModelRoutesExplorer, type RouteDefinition } from '../../src/index.js';
import { contractChecked, createPlatformApp, initPlatformApp, useNestValidation, usesNestValidation, type ContractCheckedHttp } from './app.js';
import { launchBrowser, PageProblems, RequestLog, VIEWPORTS } from './browser.js';

/** An app listening on a port, and a browser page to drive its back office: what each browser spec starts from. */
export interface BackOfficeSession {
  app: INestApplication;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** supertest on the app; each response of a generated route is checked against the OpenAPI document. */
  http: ContractCheckedHttp['http'];
  connection: Connection;
  /** Every route of the app's registrations, to hold the page's requests against. */
  table: RouteDefinition[];
  browser: Browser;
  page: Page;
  log: RequestLog;
  problems: PageProblems;
  /** Closes the browser, drops the database and closes the app. */
  close(): Promise<void>;
}

/**
 * Serves the app of `moduleRef` on 127.0.0.1 (Express or Fastify, as the tests run; with a global
 * ValidationPipe in the CI pass that asks for it), opens a 1280 px page in Debian's chromium,
 * and records the page's requests and problems. A step that waits for what never comes fails in
 * five seconds, naming what it waited for.
 */
export async function startBackOfficeSession(
  moduleRef: TestingModule,
  configure: (app: INestApplication) => INestApplication = (app) => app,
): Promise<BackOfficeSession> {
  const app = configure(createPlatformApp(moduleRef, { logger: false, routeConflictPolicy: { duplicate: 'error' } }));
  if (usesNestValidation()) useNestValidation(app);
  await initPlatformApp(app);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const connection = app.get<Connection>(getConnectionToken());
  const browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: VIEWPORTS.desktop })).newPage();
  page.setDefaultTimeout(5000);
  return {
    app,
    base,
    http: contractChecked(app).http,
    connection,
    table: app.get(ModelRoutesExplorer).routes(),
    browser,
    page,
    log: new RequestLog(page, base),
    problems: new PageProblems(page),
    async close() {
      await browser.close();
      await connection.dropDatabase().catch(() => undefined);
      await app.close();
    },
  };
}

/** Opens a hash route of the back office at `/admin` and waits for the page's heading. */
export async function openBackOffice(session: Pick<BackOfficeSession, 'page' | 'base'>, hash: string, heading: string | RegExp): Promise<void> {
  await session.page.goto(`${session.base}/admin#${hash}`);
  await session.page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/**
 * Holds the next request of `page` whose URL matches `url` until the returned function is called:
 * a page made to be still loading, whatever the machine's speed.
 */
export async function holdNextRequest(page: Page, url: RegExp): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(
    url,
    async (route) => {
      await held;
      await route.continue();
    },
    { times: 1 },
  );
  return release;
}
