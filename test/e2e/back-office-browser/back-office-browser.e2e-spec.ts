import { Test } from '@nestjs/testing';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { AppModule } from '../../../sample-app/app.module.js';
import { configureSampleApp } from '../../../sample-app/app.setup.js';
import type { RouteDefinition } from '../../../src/index.js';
import { holdNextRequest, openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser, type PageProblems, type RequestLog, screenshot, VIEWPORTS } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';
import { makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeBrowserSpec(): void {
  /**
   * The back office of the sample app, in a real browser (Debian's chromium driven by
   * playwright-core): the scenarios, one after the other on one database, as a user would
   * go through them. Every page passes axe-core without a serious or critical violation, and every
   * request the browser makes is one of the generated routes (or the back office's own page, assets
   * and metadata).
   */
  const engine = useEngine();

  const API_KEY = process.env.SAMPLE_API_KEY ?? 'sample-key';

  /** A logo worth a screenshot: a PNG that sharp draws from SVG. */
  function logo(): Promise<Buffer> {
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="160"><rect width="160" height="160" rx="32" fill="#0b57d0"/>' +
      '<text x="80" y="104" font-family="sans-serif" font-size="64" font-weight="700" fill="#fff" text-anchor="middle">HL</text></svg>';
    return sharp(Buffer.from(svg)).png().toBuffer();
  }

  describeBrowser('the back office in a browser (sample app)', () => {
    let session: BackOfficeSession;
    let page: Page;
    let log: RequestLog;
    let problems: PageProblems;
    let table: RouteDefinition[];
    const http = () => session.http();

    beforeAll(async () => {
      const moduleRef = await Test.createTestingModule({ imports: [AppModule.forDatabase(engine.get().uri, engine.dbName('back_office'))] }).compile();
      session = await startBackOfficeSession(moduleRef, configureSampleApp);
      ({ page, log, problems, table } = session);
      // Companies to sort and filter: three whose name holds "labs", one that does not.
      const [owner] = (await http().get('/users').expect(200)).body.result;
      for (const [niceName, employees] of [
        ['Alpha Labs', 10],
        ['Beta labs', 300],
        ['Gamma Works', 50],
      ] as const) {
        await http().post('/company').send({ niceName, employees, owner: owner._id }).expect(201);
      }
    }, 60000);

    afterAll(() => session?.close());

    const open = (hash: string, heading: string | RegExp) => openBackOffice(session, hash, heading);

    async function company(niceName: string): Promise<Record<string, unknown>> {
      const { body } = await http().get('/companies').query({ niceName }).expect(200);
      return body.result[0];
    }

    async function setCredential(value: string): Promise<void> {
      await page.getByRole('button', { name: 'Credentials' }).click();
      const dialog = page.getByRole('dialog', { name: 'Credentials' });
      if (value) {
        await dialog.getByLabel('Value of the x-api-key header').fill(value);
        await dialog.getByRole('button', { name: 'Save' }).click();
      } else {
        await dialog.getByRole('button', { name: 'Forget' }).click();
      }
      await dialog.waitFor({ state: 'detached' });
    }

    it('opens on a menu of the resources (accessible)', async () => {
      await open('/', 'model-routes sample');
      const menu = page.getByRole('navigation', { name: 'Resources' });
      await expect(menu.getByRole('link').allTextContents()).resolves.toEqual(['Users', 'Companies', 'Books']);
      await checkAccessibility(page, 'home');
    });

    it('creates a user', async () => {
      await open('/user/new', 'New user');
      await checkAccessibility(page, 'create user');
      await page.getByLabel('Nice name').fill('Grace Hopper');
      await page.getByLabel('Birth').fill('1906-12-09');
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('heading', { level: 1, name: 'User: Grace Hopper' }).waitFor();
      const { body } = await http().get('/users').query({ niceName: 'Grace Hopper' }).expect(200);
      expect(body.result).toHaveLength(1);
      expect(body.result[0].birth).toBe('1906-12-09T00:00:00.000Z');
    });

    it(
      "shows the server's error of a missing required field next to that field, then creates a company choosing its owner with the picker " + '(keyboard only)',
      async () => {
        await open('/company/new', 'New company');
        await page.getByLabel('Employees').fill('42');
        await page.getByRole('button', { name: 'Create company' }).click();
        const name = page.getByLabel('Nice name');
        const error = page.locator('.field', { has: name }).locator('.field-error:not([hidden])');
        await error.waitFor();
        await expect(name.getAttribute('aria-invalid')).resolves.toBe('true');
        const describedBy = (await name.getAttribute('aria-describedby'))!.split(' ');
        await expect(error.textContent()).resolves.toMatch(/niceName/);
        expect(describedBy).toContain(await error.getAttribute('id'));
        await expect(name.evaluate((element) => element === element.ownerDocument.activeElement)).resolves.toBe(true);
        await screenshot(page, 'create-form-validation-error');
        await checkAccessibility(page, 'create company with an error');
        expect(
          await http()
            .get('/companies')
            .query({ employees: 42 })
            .then((response) => response.body.status.match_count),
        ).toBe(0);

        await name.fill('Hopper Labs');
        const owner = page.getByRole('combobox', { name: 'Owner' });
        await owner.focus();
        await page.keyboard.type('grace');
        await page.getByRole('option', { name: /Grace Hopper/ }).waitFor();
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await expect(owner.inputValue()).resolves.toBe('Grace Hopper');
        await page.getByRole('button', { name: 'Create company' }).click();
        await page.getByRole('heading', { level: 1, name: 'Company: Hopper Labs' }).waitFor();
        const created = await company('Hopper Labs');
        const grace = (await http().get('/users').query({ niceName: 'Grace Hopper' })).body.result[0];
        expect(created).toMatchObject({ employees: 42, owner: grace._id });
      },
    );

    it('lists companies filtered by a name fragment, sorted by employees by clicking the column', async () => {
      await open('/company', 'Companies');
      await page.getByLabel('Nice name contains').fill('LABS');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/niceName=LABS/);
      const employees = page.getByRole('columnheader', { name: 'Employees' });
      await employees.getByRole('button').click();
      await page.locator('th[aria-sort=ascending]', { hasText: 'Employees' }).waitFor();
      await employees.getByRole('button').click();
      await page.locator('th[aria-sort=descending]', { hasText: 'Employees' }).waitFor();
      await page.getByRole('region', { name: 'Companies, sorted by employees descending' }).waitFor();
      const rows = page.locator('tbody tr');
      await expect(rows.locator('th').allTextContents()).resolves.toEqual(['Beta labs', 'Hopper Labs', 'Alpha Labs']);
      // The total is status.count: the collection's count from its metadata, which on FerretDB's
      // PostgreSQL backend is PostgreSQL's row estimate (docs/decisions.md): it may lag, never below the matches.
      const paging = await page.getByRole('navigation', { name: 'Pages' }).locator('p').textContent();
      const [, total] = /^1–3 of 3 matching \((\d+) in total\)$/.exec(paging ?? '') ?? [];
      expect(Number(total)).toBeGreaterThanOrEqual(3);
      await screenshot(page, 'list');
      await checkAccessibility(page, 'company list');
    });

    it('follows the owner link from a company to the user', async () => {
      await page.getByRole('link', { name: 'Hopper Labs' }).click();
      await page.getByRole('heading', { level: 1, name: 'Company: Hopper Labs' }).waitFor();
      await page.getByRole('link', { name: 'Open owner: Grace Hopper' }).click();
      await page.getByRole('heading', { level: 1, name: 'User: Grace Hopper' }).waitFor();
      await checkAccessibility(page, 'user');
    });

    it("lists the user's companies through the reverse route", async () => {
      await page.getByRole('link', { name: 'Companies whose owner is this user' }).click();
      await page.getByRole('heading', { level: 1, name: /Companies whose owner is Grace Hopper/ }).waitFor();
      await page.getByRole('region', { name: 'Companies' }).waitFor();
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Hopper Labs']);
      await checkAccessibility(page, 'reverse list');
    });

    it('loads the company list with one request to the API: the owners come expanded (it was two: the companies, then their owners)', async () => {
      const start = log.requests.length;
      await open('/company?sort=niceName', 'Companies');
      await page.locator('main[aria-busy=false]').waitFor();
      const api = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
      process.stdout.write(`[back office] requests of the sample's company list page load: ${api.length}\n`);
      expect(api.map((request) => request.path)).toEqual(['/companies?sort=niceName&limit=20&expand=owner']);
      await page
        .getByRole('row', { name: /Hopper Labs/ })
        .getByRole('link', { name: 'Grace Hopper' })
        .waitFor();
    });

    it('edits a company, sending If-Match', async () => {
      const { _id } = await company('Hopper Labs');
      await open(`/company/${_id}`, 'Company: Hopper Labs');
      await page.getByLabel('Location').fill('Arlington');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved company Hopper Labs.').waitFor();
      // The form is made again after a save: the keyboard stays on Save.
      await expect(page.getByRole('button', { name: 'Save' }).evaluate((button) => button === button.ownerDocument.activeElement)).resolves.toBe(true);
      await expect(company('Hopper Labs')).resolves.toMatchObject({ location: 'Arlington', employees: 42 });
      await screenshot(page, 'edit-form-saved');
      await checkAccessibility(page, 'edit company');
    });

    it('tells the user that someone else changed the document (412) and reloads it', async () => {
      const { _id } = await company('Hopper Labs');
      await open(`/company/${_id}`, 'Company: Hopper Labs');
      await http().patch(`/company/${_id}`).send({ location: 'Washington' }).expect(200);
      await page.getByLabel('Employees').fill('99');
      await page.getByRole('button', { name: 'Save' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Someone else changed this company' });
      await alert.waitFor();
      await checkAccessibility(page, 'edit company with 412');
      await expect(company('Hopper Labs')).resolves.toMatchObject({ location: 'Washington', employees: 42 });
      await alert.getByRole('button', { name: 'Reload company' }).click();
      await page.getByRole('status').getByText('Reloaded: this is the current version of the company.').waitFor();
      await expect(page.getByLabel('Location').inputValue()).resolves.toBe('Washington');
      await expect(page.getByLabel('Employees').inputValue()).resolves.toBe('42');
    });

    it('uploads a logo and shows it', async () => {
      const { _id } = await company('Hopper Labs');
      await open(`/company/${_id}`, 'Company: Hopper Labs');
      await setCredential(API_KEY);
      const png = await logo();
      await page.getByLabel('Upload a new logo').setInputFiles({ name: 'hopper.png', mimeType: 'image/png', buffer: png });
      const image = page.getByRole('img', { name: 'Logo of Hopper Labs: hopper.png' });
      await image.waitFor();
      await expect(
        image.evaluate(
          (img) =>
            new Promise((resolve) =>
              (img as unknown as { decode(): Promise<void> }).decode().then(() => resolve((img as unknown as { naturalWidth: number }).naturalWidth)),
            ),
        ),
      ).resolves.toBeGreaterThan(0);
      await expect(company('Hopper Labs')).resolves.toMatchObject({ logo: { name: 'hopper.png', contentType: 'image/png', size: png.length } });
      await screenshot(page, 'edit-form', { fullPage: true });
      await checkAccessibility(page, 'company with a logo');
    });

    it("adds a photo to a user's gallery, shows it, and removes it", async () => {
      const { _id } = (await http().get('/users').query({ niceName: 'Grace Hopper' })).body.result[0];
      await open(`/user/${_id}`, 'User: Grace Hopper');
      const photo = await makeImage('jpeg', { width: 90, height: 120, seed: 1906 });
      await page.getByLabel('Add a file to photos').setInputFiles({ name: 'grace.jpg', mimeType: 'image/jpeg', buffer: photo });
      await page.getByRole('img', { name: 'Photos of Grace Hopper: grace.jpg' }).waitFor();
      await checkAccessibility(page, 'user with a photo');
      const [stored] = (await http().get(`/user/${_id}`).expect(200)).body.photos;
      expect(stored).toMatchObject({ name: 'grace.jpg', contentType: 'image/jpeg', size: photo.length });
      await page.getByRole('button', { name: 'Remove grace.jpg' }).click();
      await page.getByRole('status').getByText('Photos: removed grace.jpg.').waitFor();
      await http().get(`/user/${_id}/photos/${stored._id}`).expect(404);
    });

    it('creates a book, a resource identified by its slug, and reaches it from its author', async () => {
      await open('/book/new', 'New book');
      await page.getByLabel('Slug').fill('Compiler Notes');
      await page.getByLabel('Title').fill('Compiler notes');
      const author = page.getByRole('combobox', { name: 'Author' });
      await author.fill('hopper');
      await page.getByRole('option', { name: /Grace Hopper/ }).click();
      await page.getByRole('button', { name: 'Create book' }).click();
      const slugError = page.locator('.field', { has: page.getByLabel('Slug') }).locator('.field-error:not([hidden])');
      await slugError.waitFor();
      await expect(slugError.textContent()).resolves.toMatch(/slug/);
      await page.getByLabel('Slug').fill('compiler-notes');
      await page.getByRole('button', { name: 'Create book' }).click();
      await page.getByRole('heading', { level: 1, name: 'Book: Compiler notes' }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/book/compiler-notes');
      await page.getByRole('link', { name: 'Open author: Grace Hopper' }).click();
      await page.getByRole('link', { name: 'Books whose author is this user' }).click();
      await page.getByRole('region', { name: 'Books' }).waitFor();
      await page.getByRole('link', { name: 'Compiler notes' }).click();
      await page.getByRole('heading', { level: 1, name: 'Book: Compiler notes' }).waitFor();
    });

    it('with the API key unset, the guarded delete shows the 401 message and deletes nothing', async () => {
      const { _id } = await company('Hopper Labs');
      await open(`/company/${_id}`, 'Company: Hopper Labs');
      await setCredential('');
      await page.getByRole('button', { name: 'Delete company' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete company Hopper Labs?' });
      await checkAccessibility(page, 'delete confirmation');
      await dialog.getByRole('button', { name: 'Delete company' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Not signed in: could not delete this company' });
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('x-api-key');
      await http().get(`/company/${_id}`).expect(200);
    });

    it('deletes with confirmation: Cancel keeps the company, Delete removes it', async () => {
      const { _id } = await company('Alpha Labs');
      await open(`/company/${_id}`, 'Company: Alpha Labs');
      await setCredential(API_KEY);
      await page.getByRole('button', { name: 'Delete company' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await http().get(`/company/${_id}`).expect(200);
      await page.getByRole('button', { name: 'Delete company' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete company' }).click();
      await page.getByRole('heading', { level: 1, name: 'Companies' }).waitFor();
      await page.getByRole('status').getByText('Deleted company Alpha Labs.').waitFor();
      await http().get(`/company/${_id}`).expect(404);
    });

    it('works at 390 px wide: nothing overflows the page, the menu and the form stay usable', async () => {
      await page.setViewportSize(VIEWPORTS.mobile);
      const { _id } = await company('Hopper Labs');
      await open(`/company/${_id}`, 'Company: Hopper Labs');
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'edit-form-390');
      await checkAccessibility(page, 'edit company at 390 px');
      await page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Companies' }).click();
      await page.getByRole('heading', { level: 1, name: 'Companies' }).waitFor();
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'list-390');
      await checkAccessibility(page, 'company list at 390 px');
      await page.setViewportSize(VIEWPORTS.desktop);
    });

    it('never adds a list still loading to the page the user moved on to (regression: two tables, seen in CI)', async () => {
      // The companies' search is held until the user is on the users' list.
      const release = await holdNextRequest(page, /\/companies\?/);
      await open('/company?niceName=labs', 'Companies');
      await page.goto(`${session.base}/admin#/user`);
      await page.getByRole('region', { name: 'Users' }).waitFor();
      const finished = page.waitForResponse(/\/companies\?/);
      release();
      await finished;
      // Every page that was loading has finished, the held one included.
      await page.locator('main[aria-busy=false]').waitFor();
      await expect(page.getByRole('region').count()).resolves.toBe(1);
      await expect(page.getByRole('heading', { level: 1 }).allTextContents()).resolves.toEqual(['Users']);
    });

    it('shows where the keyboard focus is, and a page that finishes loading leaves it where the user put it (regression: seen in CI)', async () => {
      const release = await holdNextRequest(page, /\/companies\?/);
      // The heading has the focus as soon as the page is there; the user tabs on while the list still loads.
      await open('/company', 'Companies');
      await expect(page.getByRole('heading', { level: 1 }).evaluate((heading) => heading === heading.ownerDocument.activeElement)).resolves.toBe(true);
      await page.keyboard.press('Tab');
      const outline = await page.evaluate<{ style: string; width: string }>(
        '(({ outlineStyle, outlineWidth }) => ({ style: outlineStyle, width: outlineWidth }))(getComputedStyle(document.activeElement))',
      );
      expect(outline.style).not.toBe('none');
      expect(outline.width).not.toBe('0px');
      const focused = await page.evaluate<string>('document.activeElement.outerHTML');
      release();
      await page.getByRole('region', { name: 'Companies' }).waitFor();
      await page.locator('main[aria-busy=false]').waitFor();
      await expect(page.evaluate<string>('document.activeElement.outerHTML')).resolves.toBe(focused);
    });

    it("keeps the picker's choice when an older search fails after it (regression: the failed stale search opened the list over the choice)", async () => {
      await open('/company/new', 'New company');
      const owner = page.getByRole('combobox', { name: 'Owner' });
      // The search for "ad" is held, then fails, once the user typed on, saw the newer answer and picked.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const stale = new Promise<void>(
        (resolve) =>
          void page.route(
            /\/users\?/,
            async (route) => {
              resolve();
              await held;
              await route.fulfill({
                status: 503,
                contentType: 'application/json; charset=utf-8',
                body: JSON.stringify({
                  statusCode: 503,
                  error: 'Service Unavailable',
                  code: 'MR_DATABASE_UNAVAILABLE',
                  message: 'The database did not answer in time.',
                  details: [],
                }),
              });
            },
            { times: 1 },
          ),
      );
      await owner.focus();
      await page.keyboard.type('ad');
      await stale;
      await page.keyboard.type('a');
      await page.getByRole('option', { name: /Ada Lovelace/ }).waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect(owner.inputValue()).resolves.toBe('Ada Lovelace');
      const failed = page.waitForEvent(
        'requestfinished',
        (finished) => /\/users\?/.test(finished.url()) && new URL(finished.url()).searchParams.get('niceName[regex]') === 'ad',
      );
      release();
      await failed;
      // One more round trip of the page's: the failed answer was read and handled before it ends.
      await page.evaluate(() => fetch('/admin/metadata').then((response) => response.text()));
      await expect(owner.getAttribute('aria-expanded')).resolves.toBe('false');
      await expect(page.getByRole('listbox').isHidden()).resolves.toBe(true);
      await expect(page.locator('.picker-options .error').count()).resolves.toBe(0);
      await expect(owner.inputValue()).resolves.toBe('Ada Lovelace');
    });

    it('met no uncaught error, CSP violation or console error on the way', () => {
      expect(problems.list).toEqual([]);
    });

    it('made no request but to the generated routes and its own page, assets and metadata', () => {
      const outside = log.outsideRoutes(table, { allowedPrefixes: ['/admin'] });
      expect(outside).toEqual([]);
      expect(log.requests.filter((entry) => !entry.path.startsWith('/admin')).length).toBeGreaterThan(20);
    });
  });
}
