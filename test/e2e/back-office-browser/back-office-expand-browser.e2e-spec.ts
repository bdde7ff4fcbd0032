import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Page, Request } from 'playwright-core';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule, type RouteDefinition } from '../../../src/index.js';
import { Base, Dossier, Mission, Pilot, Report } from '../../fixtures/back-office-expand-models.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser, type PageProblems, type RecordedRequest, type RequestLog } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeExpandBrowserSpec(): void {
  /**
   * Issue 25: the back office reads referenced documents through `expand` where the reference is
   * declared expandable (test/fixtures/back-office-expand-models.ts): a list page is one request to
   * the API, where it was one plus one per target resource; a reference that is not expandable
   * keeps one search per target (never one per row). A document read with `expand` has a weak
   * ETag that `If-Match` never matches: the edit form keeps the document's own read, and its writes
   * send identifiers with that tag.
   */
  const engine = useEngine();

  describeBrowser('the back office reads references through expand (in a browser)', () => {
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
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_expand') }),
          // A small skip bound: the list's pages past it are reached with cursors (the paging test below).
          ModelRoutesModule.forRoot({ resources: [Pilot, Base, Mission, Report, Dossier], search: { maxSkip: 20 } }),
          BackOfficeModule.forRoot({ path: '/admin', title: 'Expand office' }),
        ],
      })
      class ExpandModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [ExpandModule] }).compile());
      ({ page, log, problems, table } = session);
      for (const name of ['Ada Lovelace', 'Barbara Liskov', 'Carl Sagan', 'Gone Pilot'])
        ids[name] = (await http().post('/pilot').send({ name }).expect(201)).body._id;
      for (const name of ['Kourou', 'Baikonur']) ids[name] = (await http().post('/base').send({ name }).expect(201)).body._id;
      const missions = [
        { name: 'Apollo', captain: ids['Ada Lovelace'], base: ids.Kourou, crew: [ids['Barbara Liskov']] },
        { name: 'Gemini', captain: ids['Barbara Liskov'], base: ids.Baikonur, crew: [] },
        { name: 'Mercury', captain: ids['Gone Pilot'], base: ids.Kourou },
      ];
      for (const mission of missions) ids[mission.name] = (await http().post('/mission').send(mission).expect(201)).body._id;
      // A captain deleted since (the default onDelete, 'ignore'): a dangling reference.
      await http().delete(`/pilot/${ids['Gone Pilot']}`).expect(200);
      for (const [title, mission, author] of [
        ['Launch', 'Apollo', 'Carl Sagan'],
        ['Landing', 'Gemini', 'Ada Lovelace'],
      ]) {
        await http().post('/report').send({ title, mission: ids[mission], author: ids[author] }).expect(201);
      }
      await http().post('/dossier').send({ title: 'Cold case', handler: ids['Ada Lovelace'], base: ids.Baikonur }).expect(201);
      // Bases for three pages of their list: 45 in all, Site 01 to Site 43 after Baikonur and Kourou.
      await session.connection.model('Base').insertMany(sites(1, 43).map((name) => ({ name })));
    }, 60000);

    /** `Site 01` ... */
    function sites(first: number, last: number): string[] {
      return Array.from({ length: last - first + 1 }, (_, index) => `Site ${String(first + index).padStart(2, '0')}`);
    }

    afterAll(() => session?.close());

    /** The API requests (not the back office's own page, assets and metadata) of opening `hash`, once the page has loaded. */
    async function apiRequestsOf(hash: string, heading: string | RegExp): Promise<RecordedRequest[]> {
      const start = log.requests.length;
      await openBackOffice(session, hash, heading);
      await page.locator('main[aria-busy=false]').waitFor();
      return log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
    }

    /** The next request the page sends with `method` to a path matching `path`. */
    function nextRequest(method: string, path: RegExp): Promise<Request> {
      return page.waitForRequest((candidate) => candidate.method() === method && path.test(new URL(candidate.url()).pathname));
    }

    it('says in its metadata which reference fields are expandable', async () => {
      const { body } = await http().get('/admin/metadata').expect(200);
      const fields = (name: string) =>
        body.resources.find((resource: { name: string }) => resource.name === name).fields as Array<{ path: string; expandable?: boolean }>;
      expect(
        Object.fromEntries(
          fields('Mission')
            .filter((field) => ['captain', 'base', 'crew'].includes(field.path))
            .map((field) => [field.path, field.expandable]),
        ),
      ).toEqual({ captain: true, base: true, crew: true });
      expect(fields('Report').find((field) => field.path === 'mission')?.expandable).toBe(true);
      expect(fields('Report').find((field) => field.path === 'author')).not.toHaveProperty('expandable');
    });

    it('loads a list page whose references are expandable with ONE request to the API (it was 1 + one per target resource: 3 here)', async () => {
      const requests = await apiRequestsOf('/mission?sort=name', 'Missions');
      process.stdout.write(`[back office] requests of one list page load (missions: captain and base expandable, 2 targets): ${requests.length}\n`);
      expect(requests.map((request) => request.path)).toEqual(['/missions?sort=name&limit=20&expand=captain%2Cbase']);
      const rows = page.locator('tbody tr');
      await expect(rows.locator('th').allTextContents()).resolves.toEqual(['Apollo', 'Gemini', 'Mercury']);
      await expect(rows.nth(0).locator('td a').allTextContents()).resolves.toEqual(['Ada Lovelace', 'Kourou']);
      await expect(rows.nth(0).getByRole('link', { name: 'Ada Lovelace' }).getAttribute('href')).resolves.toBe(`#/pilot/${ids['Ada Lovelace']}`);
      await expect(rows.nth(1).locator('td a').allTextContents()).resolves.toEqual(['Barbara Liskov', 'Baikonur']);
      // The captain that is gone: no link, as before; the expanded answer has no identifier to show.
      await expect(rows.nth(2).locator('td').first().textContent()).resolves.toBe('Missing');
      await expect(rows.nth(2).locator('td a').allTextContents()).resolves.toEqual(['Kourou']);
      await checkAccessibility(page, 'missions, references expanded');
    });

    it('expands what it can and looks up the rest with one search per target, never one per row (through the POST search: expand in its body)', async () => {
      const search = nextRequest('POST', /^\/reports$/);
      const requests = await apiRequestsOf('/report?sort=title', 'Reports');
      process.stdout.write(`[back office] requests of one list page load (reports: mission expandable, author not): ${requests.length}\n`);
      expect(requests.map((request) => `${request.method} ${request.path.split('?')[0]}`)).toEqual(['POST /reports', 'GET /pilots']);
      expect((await search).postDataJSON()).toEqual({ query: {}, sort: 'title', limit: 20, expand: ['mission'] });
      await expect(page.locator('tbody tr').nth(0).locator('td a').allTextContents()).resolves.toEqual(['Gemini', 'Ada Lovelace']);
      await expect(page.locator('tbody tr').nth(1).locator('td a').allTextContents()).resolves.toEqual(['Apollo', 'Carl Sagan']);
    });

    it("names the chosen document in a reference filter's picker from the page's own answer: still one request", async () => {
      const start = log.requests.length;
      await apiRequestsOf(`/mission?captain=${ids['Ada Lovelace']}`, 'Missions');
      const captain = page.getByRole('combobox', { name: 'Captain' });
      await page.waitForFunction((input) => (input as unknown as { value: string }).value === 'Ada Lovelace', await captain.elementHandle());
      const requests = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
      expect(requests.map((request) => request.path)).toEqual([`/missions?captain=${ids['Ada Lovelace']}&limit=20&expand=captain%2Cbase`]);
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Apollo']);
    });

    it('reads a document for its form without expand (its own ETag) and with expand for the names, at once', async () => {
      const requests = await apiRequestsOf(`/mission/${ids.Apollo}`, 'Mission: Apollo');
      expect(requests.map((request) => request.path).sort()).toEqual([`/mission/${ids.Apollo}`, `/mission/${ids.Apollo}?expand=captain%2Cbase%2Ccrew`]);
      await page.getByRole('link', { name: 'Open captain: Ada Lovelace' }).waitFor();
      await page.getByRole('link', { name: 'Open base: Kourou' }).waitFor();
      await expect(page.getByRole('combobox', { name: 'Captain' }).inputValue()).resolves.toBe('Ada Lovelace');
      await expect(page.getByRole('list', { name: 'Crew' }).getByRole('link').allTextContents()).resolves.toEqual(['Barbara Liskov']);
      await checkAccessibility(page, 'mission, references expanded');
    });

    it('saves a document read with expand: the write sends identifiers and the If-Match of the read without expand, and succeeds', async () => {
      const own = (await http().get(`/mission/${ids.Apollo}`).expect(200)).headers.etag;
      const expanded = (await http().get(`/mission/${ids.Apollo}`).query({ expand: 'captain' }).expect(200)).headers.etag;
      expect(expanded).toMatch(/^W\//);
      await openBackOffice(session, `/mission/${ids.Apollo}`, 'Mission: Apollo');
      await page.getByRole('link', { name: 'Open captain: Ada Lovelace' }).waitFor();
      await page.getByLabel('Name').fill('Apollo 11');
      const captain = page.getByRole('combobox', { name: 'Captain' });
      await captain.fill('carl');
      await page.getByRole('option', { name: /Carl Sagan/ }).click();
      await page.getByRole('combobox', { name: 'Add to crew' }).fill('ada');
      await page.getByRole('option', { name: /Ada Lovelace/ }).click();
      await page.getByRole('list', { name: 'Crew' }).getByRole('link', { name: 'Ada Lovelace' }).waitFor();
      const saved = nextRequest('PATCH', /^\/mission\//);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved mission Apollo 11.').waitFor();
      const request = await saved;
      expect(request.headers()['if-match']).toBe(own);
      expect(request.postDataJSON()).toEqual({ name: 'Apollo 11', captain: ids['Carl Sagan'], crew: [ids['Barbara Liskov'], ids['Ada Lovelace']] });
      expect((await request.response())?.status()).toBe(200);
      await expect(
        http()
          .get(`/mission/${ids.Apollo}`)
          .expect(200)
          .then((response) => response.body),
      ).resolves.toMatchObject({
        name: 'Apollo 11',
        captain: ids['Carl Sagan'],
        crew: [ids['Barbara Liskov'], ids['Ada Lovelace']],
        base: ids.Kourou,
      });
      // The form made again from the write's answer keeps the names it knew, with no new lookup.
      await page.getByRole('link', { name: 'Open captain: Carl Sagan' }).waitFor();
      await page.getByRole('link', { name: 'Open base: Kourou' }).waitFor();
    });

    it('shows a dangling reference of a document as before: its identifier, no link', async () => {
      await openBackOffice(session, `/mission/${ids.Mercury}`, 'Mission: Mercury');
      await page.locator('main[aria-busy=false]').waitFor();
      await expect(page.getByRole('combobox', { name: 'Captain' }).inputValue()).resolves.toBe(ids['Gone Pilot']);
      await expect(page.getByRole('link', { name: /Open captain/ }).count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Open base: Kourou' }).waitFor();
    });

    it("expands no more paths than the resource's maxExpandPaths, and looks the others up", async () => {
      const requests = await apiRequestsOf('/dossier', 'Dossiers');
      expect(requests.map((request) => request.path.split('?')[0])).toEqual(['/dossiers', '/bases']);
      expect(requests[0].path).toBe('/dossiers?limit=20&expand=handler');
      await expect(page.locator('tbody tr td a').allTextContents()).resolves.toEqual(['Ada Lovelace', 'Baikonur']);
    });

    it('reads a list again without expand when the route refuses the expand alone (a 400 naming it), as before expand', async () => {
      // A refusal the metadata could not foresee (an app's own handler on the generated route, say): made here.
      await page.route(
        /\/missions\?.*expand=/,
        (route) =>
          route.fulfill({
            status: 400,
            contentType: 'application/json; charset=utf-8',
            body: JSON.stringify({
              statusCode: 400,
              error: 'Bad Request',
              code: 'MR_INVALID_QUERY',
              message: 'no expand here',
              details: [{ path: 'expand', message: 'no expand here' }],
            }),
          }),
        { times: 1 },
      );
      const requests = await apiRequestsOf('/mission?sort=name', 'Missions');
      expect(requests.map((request) => request.path.split('?')[0])).toEqual(['/missions', '/missions', '/pilots', '/bases']);
      expect(requests[1].path).toBe('/missions?sort=name&limit=20');
      await expect(page.locator('tbody tr').nth(1).locator('td a').allTextContents()).resolves.toEqual(['Barbara Liskov', 'Baikonur']);
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
    });

    it(
      'pages a sorted list with cursors, one request a page: Next, Next past the max skip, Previous, Back and a reload keep the rows and their position; ' +
        'a cursor of another sort starts over',
      async () => {
        const pager = page.getByRole('navigation', { name: 'Pages' });
        const rows = () => page.locator('tbody tr th').allTextContents();
        /** Follows the pager's link `name` to the page whose position text starts with `range`: its API requests. */
        async function follow(name: 'Next page' | 'Previous page', range: string): Promise<RecordedRequest[]> {
          const start = log.requests.length;
          await pager.getByRole('link', { name }).click();
          await pager.locator('p', { hasText: new RegExp(`^${range} of 45 matching \\(\\d+ in total\\)$`) }).waitFor();
          await page.locator('main[aria-busy=false]').waitFor();
          return log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
        }
        /** The request's search parameters, with its `after` (a cursor, never a `skip`). */
        function searched(requests: RecordedRequest[]): URLSearchParams {
          expect(requests.map((request) => request.path.split('?')[0])).toEqual(['/bases']);
          const query = new URL(requests[0].path, 'http://x').searchParams;
          expect(query.has('skip')).toBe(false);
          return query;
        }

        expect((await apiRequestsOf('/base?sort=name', 'Bases')).map((request) => request.path)).toEqual(['/bases?sort=name&limit=20']);
        await expect(rows()).resolves.toEqual(['Baikonur', 'Kourou', ...sites(1, 18)]);
        await expect(pager.locator('p').textContent()).resolves.toMatch(/^1–20 of 45 matching \(\d+ in total\)$/);

        const second = searched(await follow('Next page', '21–40'));
        expect([second.get('sort'), second.get('limit'), second.get('after')]).toEqual(['name', '20', expect.stringMatching(/^[\w-]+\.[\w-]+$/)]);
        await expect(rows()).resolves.toEqual(sites(19, 38));
        expect(new URL(page.url()).hash).toBe(`#/base?sort=name&after=${encodeURIComponent(second.get('after')!)}&from=21`);

        // skip=40 here is a 400 (the max skip is 20): the cursor goes on.
        await http().get('/bases').query({ sort: 'name', limit: 20, skip: 40 }).expect(400);
        const third = searched(await follow('Next page', '41–45'));
        expect(third.get('after')).not.toBe(second.get('after'));
        await expect(rows()).resolves.toEqual(sites(39, 43));
        await expect(pager.locator('span[aria-disabled=true]', { hasText: 'Next page' }).count()).resolves.toBe(1);

        expect(searched(await follow('Previous page', '21–40')).get('after')).toBe(second.get('after'));
        await expect(rows()).resolves.toEqual(sites(19, 38));
        expect((await follow('Previous page', '1–20')).map((request) => request.path)).toEqual(['/bases?sort=name&limit=20']);
        await expect(rows()).resolves.toEqual(['Baikonur', 'Kourou', ...sites(1, 18)]);

        // The browser's Back, then a reload: the page before, its rows, its position, its way back.
        await page.goBack();
        await pager.locator('p', { hasText: /^21–40 of 45/ }).waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        await expect(rows()).resolves.toEqual(sites(19, 38));
        let start = log.requests.length;
        await page.reload();
        await pager.locator('p', { hasText: /^21–40 of 45/ }).waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        expect(searched(log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'))).get('after')).toBe(second.get('after'));
        await expect(rows()).resolves.toEqual(sites(19, 38));
        await expect(pager.getByRole('link', { name: 'Previous page' }).getAttribute('href')).resolves.toBe('#/base?sort=name');
        await checkAccessibility(page, 'bases, second page by cursor');

        // A cursor of the ascending sort in a link of the descending one: the server refuses it, the page shows the first page.
        start = log.requests.length;
        await openBackOffice(session, `/base?sort=-name&after=${encodeURIComponent(second.get('after')!)}&from=21`, 'Bases');
        await page.getByText('That page could not be found again').waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        const requests = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
        expect(requests.map((request) => request.path.replace(/after=[^&]+/, 'after=<cursor>'))).toEqual([
          '/bases?sort=-name&limit=20&after=<cursor>',
          '/bases?sort=-name&limit=20',
        ]);
        await expect(rows()).resolves.toEqual(sites(24, 43).reverse());
        await expect(pager.locator('p').textContent()).resolves.toMatch(/^1–20 of 45 matching/);
        expect(new URL(page.url()).hash).toBe('#/base?sort=-name');
        await expect(page.getByRole('alert').count()).resolves.toBe(0);
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
