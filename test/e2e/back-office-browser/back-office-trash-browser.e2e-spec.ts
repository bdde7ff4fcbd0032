import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { Types, type Connection } from 'mongoose';
import type { Page, Request } from 'playwright-core';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule, type RouteDefinition } from '../../../src/index.js';
import { Citation, Member, Memo } from '../../fixtures/back-office-models.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser, type PageProblems, type RequestLog, screenshot } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeTrashBrowserSpec(): void {
  /**
   * Issue 28, item 5: the back office's trash view. Memos have soft delete (and writes under
   * `If-Match`), a citation keeps its memo (`restrict`), members have no soft delete
   * (test/fixtures/back-office-models.ts). One database, the scenarios one after the other.
   */
  const engine = useEngine();

  describeBrowser('the back office trash view (in a browser, fixture models)', () => {
    let session: BackOfficeSession;
    let connection: Connection;
    let page: Page;
    let log: RequestLog;
    let problems: PageProblems;
    let table: RouteDefinition[];
    const members: Record<string, string> = {};
    const http = () => session.http();

    beforeAll(async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_trash') }),
          ModelRoutesModule.forRoot({ resources: [Member, Memo, Citation] }),
          BackOfficeModule.forRoot({ path: '/admin', title: 'Memo office' }),
        ],
      })
      class TrashModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [TrashModule] }).compile());
      ({ connection, page, log, problems, table } = session);
      for (const name of ['Ada Lovelace', 'Barbara Liskov']) members[name] = (await http().post('/member').send({ name }).expect(201)).body._id;
      for (const [niceName, pages, author] of [
        ['Alpha memo', 3, 'Ada Lovelace'],
        ['Beta memo', 5, 'Barbara Liskov'],
      ] as const) {
        await http().post('/memo').send({ niceName, pages, author: members[author] }).expect(201);
      }
    }, 60000);

    afterAll(() => session?.close());

    const open = (hash: string, heading: string | RegExp) => openBackOffice(session, hash, heading);
    const rowNames = () => page.locator('tbody tr th').allTextContents();

    /** The memos' trash, through the list's link (a page already there would not load again: its hash is the same). */
    async function openTrash(): Promise<void> {
      await open('/memo', 'Memos');
      await page.getByRole('link', { name: 'Trash', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Trash: memos' }).waitFor();
    }

    /** A living memo's id, by name (the search sees no deleted one). */
    async function memoId(niceName: string): Promise<string> {
      const { body } = await http().get('/memos').query({ niceName }).expect(200);
      expect(body.result).toHaveLength(1);
      return body.result[0]._id;
    }

    /** A memo created and deleted through the routes: in the trash. */
    async function deletedMemo(niceName: string): Promise<string> {
      const id = (await http().post('/memo').send({ niceName }).expect(201)).body._id;
      await http().delete(`/memo/${id}`).set('If-Match', '*').expect(200);
      return id;
    }

    /** The memo as stored, read through the connection (`null` once gone). */
    const stored = (id: string) => connection.db!.collection('memos').findOne({ _id: new Types.ObjectId(id) });

    /** The next request the page sends with `method` to `path`. */
    function nextRequest(method: string, path: string): Promise<Request> {
      return page.waitForRequest((candidate) => candidate.method() === method && new URL(candidate.url()).pathname === path);
    }

    it('says in its metadata which resource has soft delete, its mark and its trash routes', async () => {
      const { body } = await http().get('/admin/metadata').expect(200);
      const byName = Object.fromEntries(body.resources.map((resource: { name: string }) => [resource.name, resource]));
      expect(byName.Memo.softDelete).toEqual({ field: 'deletedAt' });
      expect(byName.Memo.routes).toEqual(expect.arrayContaining(['delete', 'trash', 'restore', 'purge']));
      expect(byName.Memo.fields.find((field: { path: string }) => field.path === 'deletedAt')).toEqual({ path: 'deletedAt', type: 'date', readOnly: true });
      expect(byName.Member.softDelete).toBeUndefined();
      expect(byName.Member.routes.filter((route: string) => ['trash', 'restore', 'purge'].includes(route))).toEqual([]);
    });

    it(
      'deletes a memo opened from the list: the confirmation says it goes to the trash; it leaves the list, is in the trash with when it was deleted, and ' +
        'Restore brings it back to the list',
      async () => {
        const id = await memoId('Alpha memo');
        await open('/memo', 'Memos');
        await page.getByRole('row', { name: /Alpha memo/ }).waitFor();
        // The list shows no mark: every document it lists lives.
        await expect(page.getByRole('columnheader').allTextContents()).resolves.toEqual(['Nice name', 'Pages', 'Author']);
        await page.getByRole('link', { name: 'Alpha memo' }).click();
        await page.getByRole('heading', { level: 1, name: 'Memo: Alpha memo' }).waitFor();
        await expect(page.getByText('Deleted at').count()).resolves.toBe(0);

        await page.getByRole('button', { name: 'Delete memo' }).click();
        const dialog = page.getByRole('dialog', { name: 'Delete memo Alpha memo?' });
        await dialog.getByText('It goes to the trash, from where it can be restored.').waitFor();
        await checkAccessibility(page, 'delete confirmation of a resource with soft delete');
        const deleting = nextRequest('DELETE', `/memo/${id}`);
        await dialog.getByRole('button', { name: 'Delete memo' }).click();
        // The version on screen, as every write of the page sends it.
        expect((await deleting).headers()['if-match']).toMatch(/^"/);
        await page.getByRole('heading', { level: 1, name: 'Memos' }).waitFor();
        await page.getByRole('status').getByText('Deleted memo Alpha memo: it is in the trash.').waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        await expect(rowNames()).resolves.toEqual(['Beta memo']);
        expect((await stored(id))!.deletedAt).toBeInstanceOf(Date);

        const start = log.requests.length;
        await page.getByRole('link', { name: 'Trash', exact: true }).click();
        await page.getByRole('heading', { level: 1, name: 'Trash: memos' }).waitFor();
        expect(new URL(page.url()).hash).toBe('#/memo/trash');
        const row = page.getByRole('row', { name: /Alpha memo/ });
        await row.waitFor();
        await page.locator('main[aria-busy=false]').waitFor();
        // The trash's one search, latest deletion first; then the one lookup of the authors' names (the trash takes no expand).
        const requests = log.requests.slice(start).filter((request) => !request.path.startsWith('/admin'));
        expect(requests.map((request) => `${request.method} ${request.path.split('?')[0]}`)).toEqual(['GET /memos/trash', 'GET /members']);
        expect(requests[0].path).toBe('/memos/trash?sort=-deletedAt&limit=20');
        await expect(page.getByRole('columnheader').allTextContents()).resolves.toEqual(['Nice name', 'Pages', 'Author', 'Deleted at', 'Actions']);
        const cells = await row.locator('th, td').allTextContents();
        expect(cells.slice(0, 3)).toEqual(['Alpha memo', '3', 'Ada Lovelace']);
        expect(cells[3]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
        // A document in the trash has no page to open: its name is no link; its author's is.
        await expect(row.getByRole('link', { name: 'Alpha memo' }).count()).resolves.toBe(0);
        await expect(row.getByRole('link', { name: 'Ada Lovelace' }).count()).resolves.toBe(1);
        await expect(page.getByRole('navigation', { name: 'Pages' }).textContent()).resolves.toContain('1–1 of 1 matching');
        await checkAccessibility(page, 'the trash of memos');
        await screenshot(page, 'trash');

        const restoring = nextRequest('POST', `/memo/${id}/restore`);
        await row.getByRole('button', { name: 'Restore Alpha memo' }).click();
        // The trash's answer has no tag per document: where writes require If-Match, any version.
        expect((await restoring).headers()['if-match']).toBe('*');
        await page.getByRole('status').getByText('Restored memo Alpha memo: it is back among the memos.').waitFor();
        await expect(page.getByRole('row', { name: /Alpha memo/ }).count()).resolves.toBe(0);
        await page.getByText('No memos in the trash.').waitFor();
        expect((await stored(id))!.deletedAt).toBeNull();

        await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Memos' }).click();
        await page.getByRole('heading', { level: 1, name: 'Memos' }).waitFor();
        await page.getByRole('row', { name: /Alpha memo/ }).waitFor();
        // Unsorted, the list is in the engine's natural order, which a write may change.
        await expect(rowNames().then((names) => names.sort())).resolves.toEqual(['Alpha memo', 'Beta memo']);
      },
    );

    it('deletes a memo forever from the trash, after a confirmation (Cancel keeps it): gone from the database', async () => {
      const id = await memoId('Beta memo');
      await http().delete(`/memo/${id}`).set('If-Match', '*').expect(200);
      await openTrash();
      const row = page.getByRole('row', { name: /Beta memo/ });
      await row.waitFor();
      await row.getByRole('button', { name: 'Delete forever Beta memo' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete memo Beta memo forever?' });
      await dialog.getByText('It is removed for good, with its files, and cannot be restored.').waitFor();
      await checkAccessibility(page, 'delete forever confirmation');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      expect(await stored(id)).toMatchObject({ niceName: 'Beta memo', deletedAt: expect.any(Date) });

      const purging = nextRequest('DELETE', `/memo/${id}/purge`);
      await row.getByRole('button', { name: 'Delete forever Beta memo' }).click();
      await dialog.getByRole('button', { name: 'Delete forever' }).click();
      expect((await purging).headers()['if-match']).toBe('*');
      await page.getByRole('status').getByText('Deleted memo Beta memo forever.').waitFor();
      await expect(page.getByRole('row', { name: /Beta memo/ }).count()).resolves.toBe(0);
      expect(await stored(id)).toBeNull();
    });

    it('shows a hostile name as text: in the trash, its buttons and its confirmation', async () => {
      const hostile = '<img src=x onerror="window.pwned=1">';
      await deletedMemo(hostile);
      await openTrash();
      await page.getByRole('row').filter({ hasText: hostile }).waitFor();
      await expect(rowNames()).resolves.toContain(hostile);
      await page.getByRole('button', { name: `Delete forever ${hostile}` }).click();
      const dialog = page.getByRole('dialog', { name: `Delete memo ${hostile} forever?` });
      await dialog.waitFor();
      await expect(page.locator('img').count()).resolves.toBe(0);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect(page.evaluate('window.pwned')).resolves.toBeUndefined();
    });

    it("shows the server's refusals in the page's alert: a 409 MR_REFERENCED on a purge, a 404 on a restore of a memo no longer in the trash", async () => {
      const cited = await deletedMemo('Cited memo');
      // A citation written to the database directly (the routes refuse a new reference to a deleted memo): restrict keeps it.
      await connection.db!.collection('citations').insertOne({ text: 'As the memo says', memo: new Types.ObjectId(cited) });
      const gone = await deletedMemo('Gone memo');
      await openTrash();
      await page.getByRole('row', { name: /Cited memo/ }).waitFor();

      const refused = page.waitForResponse((response) => new URL(response.url()).pathname === `/memo/${cited}/purge`);
      await page.getByRole('button', { name: 'Delete forever Cited memo' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete forever' }).click();
      expect((await refused).status()).toBe(409);
      const alert = page.getByRole('alert');
      await alert.getByText('Could not delete memo Cited memo forever').waitFor();
      // The server's message and its details, as text.
      await expect(alert.textContent()).resolves.toContain(`Memo '${cited}' cannot be deleted: 1 document still references it (Citation.memo: 1)`);
      await expect(alert.textContent()).resolves.toContain('1 Citation document references it');
      await checkAccessibility(page, 'a purge refused');
      await expect(page.getByRole('row', { name: /Cited memo/ }).count()).resolves.toBe(1);
      expect(await stored(cited)).toMatchObject({ deletedAt: expect.any(Date) });

      // Restored elsewhere meanwhile: not in the trash any more.
      await http().post(`/memo/${gone}/restore`).set('If-Match', '*').expect(200);
      await page.getByRole('button', { name: 'Restore Gone memo' }).click();
      await page.getByRole('alert').getByText('Not found', { exact: true }).waitFor();
      await expect(page.getByRole('alert').textContent()).resolves.toContain(`Memo '${gone}' not found (404).`);
      expect(await stored(gone)).toMatchObject({ deletedAt: null });
    });

    it('pages the trash as a sorted list pages, the latest deletion first', async () => {
      // Deleted "later" than the memos above, one day apart: the first page is the 20 latest.
      const old = Array.from({ length: 22 }, (_, index) => ({
        niceName: `Dated memo ${index + 1}`,
        pages: index + 1,
        author: null,
        deletedAt: new Date(Date.UTC(2100, 0, index + 1)),
      }));
      await connection.db!.collection('memos').insertMany(old);
      await openTrash();
      await page.getByRole('row', { name: /Dated memo 22/ }).waitFor();
      await expect(rowNames()).resolves.toEqual(Array.from({ length: 20 }, (_, index) => `Dated memo ${22 - index}`));
      await expect(
        page
          .getByRole('row', { name: /Dated memo 22/ })
          .locator('td')
          .nth(2)
          .textContent(),
      ).resolves.toBe('2100-01-22');
      const pager = page.getByRole('navigation', { name: 'Pages' });
      await expect(pager.textContent()).resolves.toContain('1–20 of 24 matching');
      await pager.getByRole('link', { name: 'Next page' }).click();
      await page.waitForURL(/#\/memo\/trash\?sort=-deletedAt&after=[^&]+&from=21$/);
      await page.getByRole('row', { name: /Cited memo/ }).waitFor();
      // Then the memos deleted by the scenarios above, the latest first.
      await expect(rowNames()).resolves.toEqual(['Dated memo 2', 'Dated memo 1', 'Cited memo', '<img src=x onerror="window.pwned=1">']);
      await expect(pager.textContent()).resolves.toContain('21–24 of 24 matching');
      await pager.getByRole('link', { name: 'Previous page' }).click();
      await page.getByRole('row', { name: /Dated memo 22/ }).waitFor();
    });

    it('offers no trash on a resource without soft delete, and its delete says it cannot be undone', async () => {
      await open('/member', 'Members');
      await page.getByRole('row', { name: /Ada Lovelace/ }).waitFor();
      await page.locator('main[aria-busy=false]').waitFor();
      await expect(page.getByRole('link', { name: 'Trash', exact: true }).count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Ada Lovelace' }).click();
      await page.getByRole('button', { name: 'Delete member' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete member Ada Lovelace?' });
      await dialog.getByText('This cannot be undone.').waitFor();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect(log.requests.some((request) => request.path.startsWith('/members/trash'))).toBe(false);
    });

    it('met no uncaught error, CSP violation or console error on the way', () => {
      expect(problems.list).toEqual([]);
    });

    it('made no request but to the generated routes and its own page, assets and metadata', () => {
      expect(log.outsideRoutes(table, { allowedPrefixes: ['/admin'] })).toEqual([]);
    });
  });
}
