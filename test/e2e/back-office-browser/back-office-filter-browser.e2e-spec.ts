import { readFile } from 'node:fs/promises';
import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { AppModule } from '../../../sample-app/app.module.js';
import { configureSampleApp } from '../../../sample-app/app.setup.js';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule, type RouteDefinition } from '../../../src/index.js';
import { Base, Mission, Pilot, Report } from '../../fixtures/back-office-expand-models.js';
import { holdNextRequest, openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser, type PageProblems, type RecordedRequest, type RequestLog } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeFilterBrowserSpec(): void {
  /**
   * Issue 25: the list page's filter panel offers filters across a reference declared
   * `filter: true` (the sample app's `Company.owner`): on the owner's fields, sent as `owner.niceName`
   * conditions in the page's own search (one request per page load), kept in the page's URL.
   */
  const engine = useEngine();

  describeBrowser('the back office filters across references (in a browser, sample app)', () => {
    let session: BackOfficeSession;
    let page: Page;
    let log: RequestLog;
    let problems: PageProblems;
    let table: RouteDefinition[];
    const http = () => session.http();

    beforeAll(async () => {
      const moduleRef = await Test.createTestingModule({ imports: [AppModule.forDatabase(engine.get().uri, engine.dbName('back_office_filter'))] }).compile();
      session = await startBackOfficeSession(moduleRef, configureSampleApp);
      ({ page, log, problems, table } = session);
      // The seed: Ada Lovelace (born 1815), owner of Analytical Engines and Difference Works. Three more owners, one company each.
      for (const [niceName, birth, company] of [
        ['Grace Hopper', '1906-12-09', 'Cobol Systems'],
        ['Alan Turing', '1912-06-23', 'Bombe Works'],
        ['Barbara Liskov', '1939-11-07', 'Clu Labs'],
      ]) {
        const owner = (await http().post('/user').send({ niceName, birth }).expect(201)).body;
        await http().post('/company').send({ niceName: company, owner: owner._id, employees: 5 }).expect(201);
      }
    }, 60000);

    afterAll(() => session?.close());

    /** The API requests (not the back office's own page, assets and metadata) made since `start`, once the page has loaded. */
    async function apiRequestsSince(start: number): Promise<RecordedRequest[]> {
      await page.locator('main[aria-busy=false]').waitFor();
      return log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
    }

    const rowNames = () => page.locator('tbody tr th').allTextContents();

    it("says in its metadata that Company.owner is filterable, on the owner's visible fields", async () => {
      const { body } = await http().get('/admin/metadata').expect(200);
      const company = body.resources.find((resource: { name: string }) => resource.name === 'Company');
      expect(company.fields.find((field: { path: string }) => field.path === 'owner')).toMatchObject({
        type: 'reference',
        target: 'Entrepreneur',
        filterable: true,
        filterFields: ['niceName', 'birth'],
      });
    });

    it("filters the companies by their owner's name: one search with the owner.niceName condition, the right rows", async () => {
      await openBackOffice(session, '/company?sort=niceName', 'Companies');
      await page.locator('main[aria-busy=false]').waitFor();
      await page.getByLabel('Nice name of owner contains').fill('LOVE');
      const start = log.requests.length;
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/owner\.niceName=LOVE/);
      await page.getByRole('row', { name: /Analytical Engines/ }).waitFor();
      const requests = await apiRequestsSince(start);
      process.stdout.write(`[back office] requests of one list page load filtered by the owner's name: ${requests.length}\n`);
      expect(requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        'GET /companies?owner.niceName%5Bregex%5D=LOVE&owner.niceName%5Boptions%5D=i&sort=niceName&limit=20&expand=owner',
      ]);
      await expect(rowNames()).resolves.toEqual(['Analytical Engines', 'Difference Works']);
      await expect(
        page
          .getByRole('row', { name: /Difference Works/ })
          .getByRole('link', { name: 'Ada Lovelace' })
          .count(),
      ).resolves.toBe(1);
      await checkAccessibility(page, 'companies filtered by their owner');
    });

    it('shows the same filter and rows after a reload, with one search again', async () => {
      const start = log.requests.length;
      await page.reload();
      await page.getByRole('heading', { level: 1, name: 'Companies' }).waitFor();
      await page.getByRole('row', { name: /Analytical Engines/ }).waitFor();
      const requests = await apiRequestsSince(start);
      expect(requests.map((request) => request.path)).toEqual([
        '/companies?owner.niceName%5Bregex%5D=LOVE&owner.niceName%5Boptions%5D=i&sort=niceName&limit=20&expand=owner',
      ]);
      await expect(page.getByLabel('Nice name of owner contains').inputValue()).resolves.toBe('LOVE');
      await expect(rowNames()).resolves.toEqual(['Analytical Engines', 'Difference Works']);
      await expect(page.locator('details.filters').getAttribute('open')).resolves.not.toBeNull();
    });

    it("filters by a range of the owner's birth, beside a filter of the companies' own", async () => {
      await page.getByLabel('Nice name of owner contains').fill('');
      const birth = page.getByRole('group', { name: 'Birth of owner' });
      await birth.getByLabel('From').fill('1900-01-01');
      await birth.getByLabel('To').fill('1920-12-31');
      await page.getByLabel('Nice name contains', { exact: true }).fill('works');
      const start = log.requests.length;
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/owner\.birth\.max=1920-12-31/);
      await page.getByRole('row', { name: /Bombe Works/ }).waitFor();
      const requests = await apiRequestsSince(start);
      expect(requests).toHaveLength(1);
      const query = new URL(requests[0].path, 'http://x').searchParams;
      expect(Object.fromEntries(query)).toEqual({
        'niceName[regex]': 'works',
        'niceName[options]': 'i',
        'owner.birth[gte]': '1900-01-01',
        'owner.birth[lte]': '1920-12-31T23:59:59.999Z',
        sort: 'niceName',
        limit: '20',
        expand: 'owner',
      });
      // Difference Works is Ada's (born 1815); Cobol Systems is no "works".
      await expect(rowNames()).resolves.toEqual(['Bombe Works']);
    });

    it('met no uncaught error, CSP violation or console error on the way', () => {
      expect(problems.list).toEqual([]);
    });

    it('made no request but to the generated routes and its own page, assets and metadata', () => {
      expect(log.outsideRoutes(table, { allowedPrefixes: ['/admin'] })).toEqual([]);
    });
  });

  describeBrowser('the back office filters across references: in a POST search body, and through an array of references (in a browser, fixture models)', () => {
    let session: BackOfficeSession;
    let page: Page;
    let log: RequestLog;
    let problems: PageProblems;
    let table: RouteDefinition[];
    const ids: Record<string, string> = {};
    const http = () => session.http();

    beforeAll(async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_filter_fixture') }),
          ModelRoutesModule.forRoot({ resources: [Pilot, Base, Mission, Report] }),
          BackOfficeModule.forRoot({ path: '/admin', title: 'Filter office' }),
        ],
      })
      class FilterModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [FilterModule] }).compile());
      ({ page, log, problems, table } = session);
      for (const name of ['Ada Lovelace', 'Barbara Liskov', 'Carl Sagan']) ids[name] = (await http().post('/pilot').send({ name }).expect(201)).body._id;
      const missions = [
        { name: 'Apollo', captain: ids['Ada Lovelace'], crew: [ids['Barbara Liskov'], ids['Carl Sagan']] },
        { name: 'Gemini', captain: ids['Barbara Liskov'], crew: [ids['Ada Lovelace']] },
        { name: 'Mercury', captain: ids['Carl Sagan'], crew: [] },
      ];
      for (const mission of missions) ids[mission.name] = (await http().post('/mission').send(mission).expect(201)).body._id;
      for (const [title, mission, author] of [
        ['Launch', 'Apollo', 'Carl Sagan'],
        ['Landing', 'Gemini', 'Ada Lovelace'],
        ['Orbit', 'Mercury', 'Carl Sagan'],
      ]) {
        await http().post('/report').send({ title, mission: ids[mission], author: ids[author] }).expect(201);
      }
    }, 60000);

    afterAll(() => session?.close());

    it("filters a list searched through POST by its author's name: the condition in the one search's body, kept in the page's URL", async () => {
      await openBackOffice(session, '/report?sort=title', 'Reports');
      await page.locator('main[aria-busy=false]').waitFor();
      await page.getByLabel('Name of author contains').fill('sagan');
      const start = log.requests.length;
      const search = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/reports');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/author\.name=sagan/);
      await page.getByRole('row', { name: /Orbit/ }).waitFor();
      expect((await search).postDataJSON()).toEqual({
        query: { 'author.name': { $regex: 'sagan', $options: 'i' } },
        sort: 'title',
        limit: 20,
        expand: ['mission'],
      });
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Launch', 'Orbit']);
      // The page's search, then the one lookup of the authors' names (author is not expandable): never one per row.
      await page.locator('main[aria-busy=false]').waitFor();
      const requests = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
      expect(requests.map((request) => `${request.method} ${request.path.split('?')[0]}`)).toEqual(['POST /reports', 'GET /pilots']);
    });

    it(
      "exports the filtered list: Export (CSV) downloads the list's search, every match and no other, through POST /reports/export; a refusal shows as an " +
        'alert; none on a list without an export route',
      async () => {
        await openBackOffice(session, '/report?sort=title&author.name=sagan', 'Reports');
        await page.getByRole('row', { name: /Orbit/ }).waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        const format = page.getByLabel('Export format');
        await expect(format.inputValue()).resolves.toBe('csv');
        await expect(format.locator('option').allTextContents()).resolves.toEqual(['CSV', 'XLSX', 'JSON', 'NDJSON']);
        await checkAccessibility(page, 'reports, filtered, with their export control');
        const exported = page.waitForRequest((request) => request.method() === 'POST' && new URL(request.url()).pathname === '/reports/export');
        const downloaded = page.waitForEvent('download');
        await page.getByRole('button', { name: 'Export', exact: true }).click();
        const request = await exported;
        // The list's search (its filter and sort), without its page or its expand; the credential as the list's own requests send it.
        expect(new URL(request.url()).search).toBe('?format=csv');
        expect(request.postDataJSON()).toEqual({ query: { 'author.name': { $regex: 'sagan', $options: 'i' } }, sort: 'title' });
        const download = await downloaded;
        expect(download.suggestedFilename()).toBe('reports.csv');
        const rows = parse(await readFile((await download.path())!, 'utf8'), { bom: true, columns: true }) as Array<Record<string, string>>;
        expect(Object.keys(rows[0])).toEqual(['_id', 'title', 'mission', 'author', 'pages']);
        expect(rows.map(({ title, mission, author }) => ({ title, mission, author }))).toEqual([
          { title: 'Launch', mission: ids.Apollo, author: ids['Carl Sagan'] },
          { title: 'Orbit', mission: ids.Mercury, author: ids['Carl Sagan'] },
        ]);
        await page.getByRole('status').getByText('Exported reports as CSV: reports.csv.').waitFor();

        // Unfiltered, the three reports are more than the two the resource exports: the server's 400 as an alert, the list still there.
        await openBackOffice(session, '/report?sort=title', 'Reports');
        await page.getByRole('row', { name: /Landing/ }).waitFor();
        // The announcement was of the page before.
        await expect(page.getByRole('status').textContent()).resolves.toBe('');
        await format.selectOption('json');
        const refused = page.waitForResponse((response) => new URL(response.url()).pathname === '/reports/export');
        await page.getByRole('button', { name: 'Export', exact: true }).focus();
        await page.keyboard.press('Enter');
        expect((await refused).status()).toBe(400);
        const alert = page.getByRole('alert');
        await alert.getByText('Could not export reports').waitFor();
        await expect(alert.textContent()).resolves.toContain('(400 MR_EXPORT_TOO_LARGE)');
        await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Landing', 'Launch', 'Orbit']);

        // Missions enable no export route: no control.
        await openBackOffice(session, '/mission?sort=name', 'Missions');
        await page.getByRole('row', { name: /Apollo/ }).waitFor();
        await expect(page.getByRole('button', { name: 'Export' }).count()).resolves.toBe(0);
        await expect(page.getByLabel('Export format').count()).resolves.toBe(0);
      },
    );

    it('filters through an array of references: the missions with some crew member of that name (the dotted form)', async () => {
      await openBackOffice(session, '/mission?sort=name', 'Missions');
      await page.locator('main[aria-busy=false]').waitFor();
      await page.getByLabel('Name of crew contains').fill('LISKOV');
      const start = log.requests.length;
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL(/crew\.name=LISKOV/);
      // Apollo was listed before the filter too: wait for the filtered rows themselves (see rowsAre).
      await rowsAre(page, ['Apollo']);
      await page.locator('main[aria-busy=false]').waitFor();
      const requests = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
      expect(requests.map((request) => request.path)).toEqual([
        '/missions?crew.name%5Bregex%5D=LISKOV&crew.name%5Boptions%5D=i&sort=name&limit=20&expand=captain%2Cbase',
      ]);
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Apollo']);
      await checkAccessibility(page, 'missions filtered by a crew member');
    });

    it("exports a reverse list: an author's reports, in the list's sort, through GET /pilot/<id>/reports/author/export", async () => {
      await openBackOffice(session, `/pilot/${ids['Carl Sagan']}`, /Pilot/);
      await page.getByRole('link', { name: 'Reports whose author is this pilot' }).click();
      await page.getByRole('heading', { level: 1, name: /Reports whose author is/ }).waitFor();
      await page.getByRole('row', { name: /Orbit/ }).waitFor();
      // Sorted by title, then descending: the export keeps the list's sort.
      await page.getByRole('button', { name: /Title/ }).click();
      await page.waitForURL(/sort=title/);
      await rowsAre(page, ['Launch', 'Orbit']);
      await page.getByRole('button', { name: /Title/ }).click();
      await page.waitForURL(/sort=-title/);
      await rowsAre(page, ['Orbit', 'Launch']);
      await page.locator('main[aria-busy=false]').waitFor();
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Orbit', 'Launch']);
      // The reverse list imports nothing: its Import is the resource's own list's.
      await expect(page.getByRole('link', { name: 'Import reports' }).count()).resolves.toBe(0);
      const exported = page.waitForRequest((request) => new URL(request.url()).pathname === `/pilot/${ids['Carl Sagan']}/reports/author/export`);
      const downloaded = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export', exact: true }).click();
      const request = await exported;
      expect(request.method()).toBe('GET');
      expect(new URL(request.url()).search).toBe('?sort=-title&format=csv');
      const download = await downloaded;
      expect(download.suggestedFilename()).toBe('reports.csv');
      const rows = parse(await readFile((await download.path())!, 'utf8'), { bom: true, columns: true }) as Array<Record<string, string>>;
      expect(rows.map(({ title, author }) => ({ title, author }))).toEqual([
        { title: 'Orbit', author: ids['Carl Sagan'] },
        { title: 'Launch', author: ids['Carl Sagan'] },
      ]);
      await page.getByRole('status').getByText('Exported reports as CSV: reports.csv.').waitFor();
    });

    it(
      'imports reports: Check (a dry run) shows each refused row, its cells as text, and writes nothing; Import then creates the valid rows; no Import ' +
        'where the route is off',
      async () => {
        const xss = '<img src=x onerror=alert(1)>';
        const file = `title,pages,author\nSplashdown,12,${ids['Ada Lovelace']}\nReentry,many,${ids['Barbara Liskov']}\nDocking,3,${xss}\n"${xss}",2,\n`;
        const reportTitles = async () =>
          ((await http().post('/reports').send({ sort: 'title' }).expect(200)).body.result as Array<{ title: string }>).map(({ title }) => title);
        await openBackOffice(session, '/mission', 'Missions');
        await expect(page.getByRole('link', { name: /^Import/ }).count()).resolves.toBe(0);
        await openBackOffice(session, '/report?sort=title', 'Reports');
        await page.getByRole('link', { name: 'Import reports' }).click();
        await page.getByRole('heading', { level: 1, name: 'Import reports' }).waitFor();
        await page.getByLabel('File').setInputFiles({ name: 'reports.csv', mimeType: 'text/csv', buffer: Buffer.from(file) });
        await expect(page.getByLabel('Format').inputValue()).resolves.toBe('csv');
        await expect(page.getByLabel('Mode').inputValue()).resolves.toBe('create');
        // What the progress line says, as it changes: the upload's bytes, then the wait for the server.
        await page.evaluate(
          `window.said = []; new MutationObserver(() => window.said.push(document.querySelector('.import-progress p')?.textContent ?? ` +
            `'')).observe(document.querySelector('main'), { subtree: true, childList: true, characterData: true })`,
        );
        // The server's answer held back: the progress bar shows while it works.
        const release = await holdNextRequest(page, /\/reports\/import/);
        const checked = page.waitForRequest((request) => new URL(request.url()).pathname === '/reports/import');
        await page.getByRole('button', { name: 'Check' }).click();
        await page.getByRole('progressbar', { name: 'Checking: progress' }).waitFor();
        release();
        const request = await checked;
        expect(new URL(request.url()).search).toBe('?mode=create&format=csv&dryRun=true');
        expect(request.headers()['content-type']).toBe('text/csv');
        const report = page.getByRole('region', { name: 'Check of reports.csv' });
        await report.waitFor();
        await expect(page.getByRole('progressbar').count()).resolves.toBe(0);
        const said = await page.evaluate<string[]>('window.said');
        expect(said).toEqual(
          expect.arrayContaining([
            `Sending the file: ${file.length} B of ${file.length} B.`,
            'File sent. Checking: the server is reading the rows (it does not report its progress)…',
          ]),
        );
        await expect(report.getByText('Checked 4 rows: 2 would be created, 0 updated, 2 refused. Nothing was written.').count()).resolves.toBe(1);
        const refused = report.getByRole('region', { name: 'Rows the import would refuse' });
        // Row by row: its number, code, message, and each detail's path and message.
        const cells = await refused.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent)));
        expect(cells).toEqual([
          ['2', 'MR_VALIDATION_FAILED', 'Validation failed for pages', 'pages: pages must be a number'],
          ['3', 'MR_VALIDATION_FAILED', 'Validation failed for author', 'author: author must be a mongodb id'],
        ]);
        // Whatever the server quotes of the file is text: no element came of it.
        await expect(page.locator('main img').count()).resolves.toBe(0);
        expect(await reportTitles()).toEqual(['Landing', 'Launch', 'Orbit']);
        await checkAccessibility(page, 'an import checked, with its refused rows');

        await page.getByRole('button', { name: 'Import', exact: true }).click();
        const imported = page.getByRole('region', { name: 'Import of reports.csv' });
        await imported.getByText('Imported 4 rows: 2 created, 0 updated, 2 refused.').waitFor();
        expect(await reportTitles()).toEqual([xss, 'Landing', 'Launch', 'Orbit', 'Splashdown']);
        await imported.getByRole('link', { name: 'See the reports' }).click();
        await page.getByRole('row', { name: /Splashdown/ }).waitFor();
        // The cell holding markup is shown as its text, in the list as in the report.
        await expect(
          page
            .locator('tbody tr th')
            .allTextContents()
            .then((titles) => titles.sort()),
        ).resolves.toEqual([xss, 'Landing', 'Launch', 'Orbit', 'Splashdown']);
        await expect(page.locator('main img').count()).resolves.toBe(0);

        // A file that cannot be read is refused whole: an alert naming the row, nothing written.
        await openBackOffice(session, '/report/import', 'Import reports');
        await page
          .getByLabel('File')
          .setInputFiles({ name: 'broken.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from('{"title":"Fine"}\nnot json\n') });
        await expect(page.getByLabel('Format').inputValue()).resolves.toBe('ndjson');
        await page.getByRole('button', { name: 'Check' }).click();
        const alert = page.getByRole('alert');
        await alert.getByText('Could not check the file').waitFor();
        await expect(alert.textContent()).resolves.toMatch(/\(400 MR_INVALID_IMPORT\).*Row 2: /);
        expect(await reportTitles()).toHaveLength(5);
      },
    );

    it('met no uncaught error, CSP violation or console error on the way', () => {
      expect(problems.list).toEqual([]);
    });

    it('made no request but to the generated routes and its own page, assets and metadata', () => {
      expect(log.outsideRoutes(table, { allowedPrefixes: ['/admin'] })).toEqual([]);
    });
  });
}

type Cells = { document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string | null }> } };

/**
 * Waits until the list's rows are `titles`, in order. A click that changes the hash reloads the page
 * on the hash's event, after the URL has changed: a wait on the URL and then on main's aria-busy can
 * see the page before its reload began, and read it while it is emptied (seen once in CI).
 */
function rowsAre(page: Page, titles: string[]): Promise<unknown> {
  return page.waitForFunction(
    (expected) => Array.from((globalThis as unknown as Cells).document.querySelectorAll('tbody tr th'), (cell) => cell.textContent).join('|') === expected,
    titles.join('|'),
  );
}
