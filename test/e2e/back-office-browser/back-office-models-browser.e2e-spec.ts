import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Connection } from 'mongoose';
import type { Page, Request } from 'playwright-core';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule, type RouteDefinition } from '../../../src/index.js';
import { BEARER_TOKEN, BearerGuard, Member, Project } from '../../fixtures/back-office-models.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser, type PageProblems, type RequestLog, screenshot, VIEWPORTS } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeModelsBrowserSpec(): void {
  /**
   * The back office on fixture models (test/fixtures/back-office-models.ts), for what the sample
   * app does not have: an enum, a boolean, a date, a nested object, an array of values, a single
   * reference and an array of references (with its relationship routes), a hidden field, a disabled
   * route, and routes behind a bearer token. One database, the scenarios one after the other.
   */
  const engine = useEngine();

  describeBrowser('the back office in a browser (fixture models)', () => {
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
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_models') }),
          ModelRoutesModule.forRoot({ resources: [Member, Project] }),
          BackOfficeModule.forRoot({ path: '/admin', title: 'Fixture office' }),
        ],
        providers: [BearerGuard],
      })
      class FixtureModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [FixtureModule] }).compile());
      ({ connection, page, log, problems, table } = session);
      // Members with an email, written to the database (a hidden field: the routes neither take nor give it).
      for (const name of ['Ada Lovelace', 'Barbara Liskov', 'Carl Sagan', 'Dana Scott']) {
        const email = `${name.split(' ')[0].toLowerCase()}@example.com`;
        members[name] = String((await connection.model('Member').create({ name, email }))._id);
      }
      // Projects to filter: with the one the create scenario adds, two are active, three are not public.
      const projects = [
        { name: 'Live site', stage: 'active', public: true, startsOn: '2026-05-10', lead: members['Carl Sagan'] },
        { name: 'Old draft', stage: 'draft', public: false, startsOn: '2025-02-01', lead: members['Barbara Liskov'] },
        { name: 'Archive', stage: 'archived', public: false, startsOn: '2024-06-15', lead: members['Ada Lovelace'] },
        { name: 'Side quest', stage: 'draft', public: false },
      ];
      for (const project of projects) await http().post('/project').send(project).expect(201);
    }, 60000);

    afterAll(() => session?.close());

    const open = (hash: string, heading: string | RegExp) => openBackOffice(session, hash, heading);

    async function project(name: string): Promise<Record<string, unknown>> {
      const { body } = await http().get('/projects').query({ name }).expect(200);
      expect(body.result).toHaveLength(1);
      return body.result[0];
    }

    /** The next request the page sends with `method` to a path matching `path`. */
    function nextRequest(method: string, path: RegExp): Promise<Request> {
      return page.waitForRequest((candidate) => candidate.method() === method && path.test(new URL(candidate.url()).pathname));
    }

    it('leaves the hidden field out of the metadata', async () => {
      const { text, body } = await http().get('/admin/metadata').expect(200);
      expect(text).not.toMatch(/email/i);
      const routes = Object.fromEntries(body.resources.map((resource: { name: string; routes: string[] }) => [resource.name, resource.routes]));
      expect(routes.Project).not.toContain('delete');
      expect(routes.Member).toContain('delete');
    });

    it('shows a control per kind of field in the create form, and creates a project with them (pickers by mouse and by keyboard)', async () => {
      await open('/project/new', 'New project');
      const stage = page.getByLabel('Stage', { exact: true });
      await expect(stage.evaluate((element) => element.tagName)).resolves.toBe('SELECT');
      await expect(stage.locator('option').allTextContents()).resolves.toEqual(['(none)', 'draft', 'active', 'archived']);
      await expect(page.getByRole('checkbox', { name: 'Public' }).count()).resolves.toBe(1);
      await expect(page.getByLabel('Starts on').getAttribute('type')).resolves.toBe('date');
      const address = page.getByRole('group', { name: 'Address' });
      await expect(address.evaluate((element) => element.tagName)).resolves.toBe('FIELDSET');
      await expect(address.getByLabel('City').count()).resolves.toBe(1);
      await expect(address.getByLabel('Country').count()).resolves.toBe(1);
      const tags = page.getByLabel('Tags');
      await expect(tags.evaluate((element) => element.tagName)).resolves.toBe('TEXTAREA');
      await expect(page.locator('.field', { has: tags }).textContent()).resolves.toContain('One value per line.');
      const lead = page.getByRole('combobox', { name: 'Lead' });
      const addMember = page.getByRole('combobox', { name: 'Add to members' });
      await expect(lead.count()).resolves.toBe(1);
      await expect(addMember.count()).resolves.toBe(1);
      await expect(page.content()).resolves.not.toMatch(/email/i);
      await checkAccessibility(page, 'create project');

      await page.getByLabel('Name').fill('Moon base');
      await stage.selectOption('active');
      await page.getByRole('checkbox', { name: 'Public' }).check();
      await page.getByLabel('Starts on').fill('2026-03-01');
      await address.getByLabel('City').fill('Paris');
      await address.getByLabel('Country').fill('France');
      await tags.fill('space\nresearch');
      // The lead with the mouse.
      await lead.fill('ada');
      await page.getByRole('option', { name: /Ada Lovelace/ }).click();
      await expect(lead.inputValue()).resolves.toBe('Ada Lovelace');
      // The members: one by keyboard, one with the mouse.
      const chips = page.getByRole('list', { name: 'Members' });
      await addMember.focus();
      await page.keyboard.type('barb');
      await page.getByRole('option', { name: /Barbara Liskov/ }).waitFor();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await chips.getByRole('link', { name: 'Barbara Liskov' }).waitFor();
      await expect(addMember.inputValue()).resolves.toBe('');
      await addMember.fill('carl');
      await page.getByRole('option', { name: /Carl Sagan/ }).click();
      await chips.getByRole('link', { name: 'Carl Sagan' }).waitFor();
      await screenshot(page, 'project-create-form', { fullPage: true });
      await checkAccessibility(page, 'create project, filled in');
      await page.getByRole('button', { name: 'Create project' }).click();
      await page.getByRole('heading', { level: 1, name: 'Project: Moon base' }).waitFor();

      const created = await project('Moon base');
      expect(created).toMatchObject({
        stage: 'active',
        public: true,
        startsOn: '2026-03-01T00:00:00.000Z',
        address: { city: 'Paris', country: 'France' },
        tags: ['space', 'research'],
        lead: members['Ada Lovelace'],
        members: [members['Barbara Liskov'], members['Carl Sagan']],
      });
    });

    it('removes and adds members through the relationship routes, with If-Match; the chips link to the members', async () => {
      const { _id } = await project('Moon base');
      await open(`/project/${_id}`, 'Project: Moon base');
      await checkAccessibility(page, 'project');
      const chips = page.getByRole('list', { name: 'Members' });
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Barbara Liskov', 'Carl Sagan']);
      await expect(chips.getByRole('link', { name: 'Carl Sagan' }).getAttribute('href')).resolves.toBe(`#/member/${members['Carl Sagan']}`);
      await expect(page.content()).resolves.not.toMatch(/email/i);

      const removal = nextRequest('DELETE', /\/members\//);
      await page.getByRole('button', { name: 'Remove Barbara Liskov from members' }).click();
      await page.getByRole('status').getByText('Members: removed.').waitFor();
      const removed = await removal;
      expect(new URL(removed.url()).pathname).toBe(`/project/${_id}/members/${members['Barbara Liskov']}`);
      const staleTag = removed.headers()['if-match'];
      expect(staleTag).toBeTruthy();
      expect(log.requests).toContainEqual(expect.objectContaining({ method: 'DELETE', path: `/project/${_id}/members/${members['Barbara Liskov']}` }));
      await expect(project('Moon base')).resolves.toMatchObject({ members: [members['Carl Sagan']] });
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Carl Sagan']);

      const addition = nextRequest('POST', /\/members\//);
      await page.getByRole('combobox', { name: 'Add to members' }).fill('dana');
      await page.getByRole('option', { name: /Dana Scott/ }).click();
      await page.getByRole('status').getByText('Members: added.').waitFor();
      const added = await addition;
      expect(new URL(added.url()).pathname).toBe(`/project/${_id}/members/${members['Dana Scott']}`);
      expect(added.headers()['if-match']).toBeTruthy();
      expect(added.headers()['if-match']).not.toBe(staleTag);
      await chips.getByRole('link', { name: 'Dana Scott' }).waitFor();
      await expect(project('Moon base')).resolves.toMatchObject({ members: [members['Carl Sagan'], members['Dana Scott']] });
      // The tag the page sent before the removal is stale now.
      await http().post(`/project/${_id}/members/${members['Ada Lovelace']}`).set('If-Match', staleTag).expect(412);

      await chips.getByRole('link', { name: 'Carl Sagan' }).click();
      await page.getByRole('heading', { level: 1, name: 'Member: Carl Sagan' }).waitFor();
      await expect(page.content()).resolves.not.toMatch(/email/i);
    });

    it('offers no delete of a project (its route is disabled), and a delete of a member', async () => {
      await page.getByRole('button', { name: 'Delete member' }).waitFor();
      await checkAccessibility(page, 'member');
      // The reverse route of the array of references: the projects this member is one of the members of.
      await page.getByRole('link', { name: 'Projects whose members include this member' }).click();
      await page.getByRole('heading', { level: 1, name: 'Projects whose members include Carl Sagan' }).waitFor();
      await page.getByRole('region', { name: 'Projects' }).waitFor();
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Moon base']);
      await checkAccessibility(page, 'projects of a member');
      const { _id } = await project('Moon base');
      await open(`/project/${_id}`, 'Project: Moon base');
      await page.getByRole('button', { name: 'Save' }).waitFor();
      await expect(page.getByRole('button', { name: /delete/i }).count()).resolves.toBe(0);
    });

    /** Applies the list's filters and waits for the table they give (the previous one marked stale first). */
    async function applyFilters(): Promise<string[]> {
      await page.locator('.table-wrap').evaluate((element) => element.setAttribute('data-stale', ''));
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.locator('.table-wrap:not([data-stale])').waitFor();
      return page.locator('tbody tr th').allTextContents();
    }

    it('filters the list by stage, by public, by a date range and by lead', async () => {
      await open('/project?sort=name', 'Projects');
      await page.getByRole('region', { name: 'Projects, sorted by name ascending' }).waitFor();
      await expect(page.locator('tbody tr th').allTextContents()).resolves.toEqual(['Archive', 'Live site', 'Moon base', 'Old draft', 'Side quest']);
      await checkAccessibility(page, 'project list');

      await page.getByLabel('Stage').selectOption('active');
      await expect(applyFilters()).resolves.toEqual(['Live site', 'Moon base']);
      await expect(
        page
          .locator('tbody tr td')
          .filter({ hasText: /^active$/ })
          .count(),
      ).resolves.toBe(2);
      await page.getByLabel('Stage').selectOption('');

      await page.getByLabel('Public').selectOption({ label: 'No' });
      await expect(applyFilters()).resolves.toEqual(['Archive', 'Old draft', 'Side quest']);
      await page.getByLabel('Public').selectOption({ label: 'Yes' });
      await expect(applyFilters()).resolves.toEqual(['Live site', 'Moon base']);
      await page.getByLabel('Public').selectOption({ label: 'Any' });

      const range = page.getByRole('group', { name: 'Starts on' });
      await range.getByLabel('From').fill('2025-01-01');
      await range.getByLabel('To').fill('2026-03-01');
      await expect(applyFilters()).resolves.toEqual(['Moon base', 'Old draft']);
      await range.getByLabel('From').fill('');
      await range.getByLabel('To').fill('');

      const lead = page.getByRole('combobox', { name: 'Lead' });
      await lead.fill('ada');
      await page.getByRole('option', { name: /Ada Lovelace/ }).click();
      await expect(applyFilters()).resolves.toEqual(['Archive', 'Moon base']);
      expect(page.url()).toContain(`lead=${members['Ada Lovelace']}`);
      // The filter holds the member's identifier; its picker shows the member's name.
      await page.waitForFunction(
        (input) => (input as unknown as { value: string }).value === 'Ada Lovelace',
        await page.getByRole('combobox', { name: 'Lead' }).elementHandle(),
      );
      await expect(page.locator('tbody tr td a', { hasText: 'Ada Lovelace' }).count()).resolves.toBe(2);
      // Two date ranges among the filters: the page stays within the 1280 px window.
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(1280);
      await screenshot(page, 'project-list');
      await checkAccessibility(page, 'project list filtered by lead');
    });

    it('asks for the bearer token when the guarded save is a 401, then saves with it', async () => {
      const { _id } = await project('Moon base');
      await open(`/project/${_id}`, 'Project: Moon base');
      await page.getByRole('group', { name: 'Address' }).getByLabel('City').fill('Lyon');
      const refused = nextRequest('PATCH', /^\/project\//);
      await page.getByRole('button', { name: 'Save' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Not signed in: could not save this project' });
      await alert.waitFor();
      expect((await refused).headers().authorization).toBeUndefined();
      await expect(alert.textContent()).resolves.toContain('authorization');
      await checkAccessibility(page, 'project save refused (401)');
      await expect(project('Moon base')).resolves.toMatchObject({ address: { city: 'Paris', country: 'France' } });

      await alert.getByRole('button', { name: 'Enter credentials' }).click();
      const dialog = page.getByRole('dialog', { name: 'Credentials' });
      await dialog.waitFor();
      await checkAccessibility(page, 'credentials dialog');
      await dialog.getByLabel('Bearer token').fill(BEARER_TOKEN);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      // The form keeps what was typed.
      await expect(page.getByRole('group', { name: 'Address' }).getByLabel('City').inputValue()).resolves.toBe('Lyon');

      const saved = nextRequest('PATCH', /^\/project\//);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved project Moon base.').waitFor();
      const headers = (await saved).headers();
      expect(headers.authorization).toBe(`Bearer ${BEARER_TOKEN}`);
      expect(headers['if-match']).toBeTruthy();
      await expect(project('Moon base')).resolves.toMatchObject({ address: { city: 'Lyon', country: 'France' } });
      await screenshot(page, 'project-edit-form', { fullPage: true });
      await checkAccessibility(page, 'project saved');
    });

    it('clears values: an enum back to none, a box unticked, a date and a reference emptied; sets tags', async () => {
      const { _id } = await project('Live site');
      await open(`/project/${_id}`, 'Project: Live site');
      await page.getByRole('link', { name: 'Open lead: Carl Sagan' }).waitFor();
      await page.getByLabel('Stage', { exact: true }).selectOption('');
      await page.getByRole('checkbox', { name: 'Public' }).uncheck();
      await page.getByLabel('Starts on').fill('');
      await page.getByRole('combobox', { name: 'Lead' }).fill('');
      await page.getByLabel('Tags').fill('web\n\n  launch  \n');
      const saved = nextRequest('PATCH', /^\/project\//);
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved project Live site.').waitFor();
      expect((await saved).postDataJSON()).toEqual({ stage: null, public: false, startsOn: null, lead: null, tags: ['web', 'launch'] });
      const stored = await project('Live site');
      expect(stored).toMatchObject({ public: false, tags: ['web', 'launch'] });
      expect(stored).not.toHaveProperty('stage');
      expect(stored).not.toHaveProperty('startsOn');
      expect(stored).not.toHaveProperty('lead');
      await expect(page.getByRole('link', { name: /Open lead/ }).count()).resolves.toBe(0);
      await expect(page.getByLabel('Stage', { exact: true }).inputValue()).resolves.toBe('');
    });

    it("keeps the focus in the members when one is removed with the keyboard; a change after someone else's is a 412 that offers to reload", async () => {
      const { _id } = await project('Moon base');
      await open(`/project/${_id}`, 'Project: Moon base');
      const chips = page.getByRole('list', { name: 'Members' });
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Carl Sagan', 'Dana Scott']);
      await page.getByRole('button', { name: 'Remove Carl Sagan from members' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('status').getByText('Members: removed.').waitFor();
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Dana Scott']);
      const isFocused = (name: string) => page.getByRole('button', { name }).evaluate((element) => element === element.ownerDocument.activeElement);
      await expect(isFocused('Remove Dana Scott from members')).resolves.toBe(true);

      // Someone else changes the project; adding a member with the page's version is refused.
      await http()
        .patch(`/project/${_id}`)
        .set('authorization', `Bearer ${BEARER_TOKEN}`)
        .send({ tags: ['space'] })
        .expect(200);
      await page.getByRole('combobox', { name: 'Add to members' }).fill('ada');
      await page.getByRole('option', { name: /Ada Lovelace/ }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Someone else changed this project' });
      await alert.waitFor();
      await checkAccessibility(page, 'project members with 412');
      await expect(project('Moon base')).resolves.toMatchObject({ members: [members['Dana Scott']], tags: ['space'] });
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Dana Scott']);
      await alert.getByRole('button', { name: 'Reload project' }).click();
      await page.getByRole('status').getByText('Reloaded: this is the current version of the project.').waitFor();
      await expect(page.getByLabel('Tags').inputValue()).resolves.toBe('space');

      // A member deleted between the search and the pick: the refusal is shown by the members, in words.
      const ghost = String((await connection.model('Member').create({ name: 'Eve Ghost' }))._id);
      await page.getByRole('combobox', { name: 'Add to members' }).fill('eve');
      const option = page.getByRole('option', { name: /Eve Ghost/ });
      await option.waitFor();
      await http().delete(`/member/${ghost}`).expect(200);
      await option.click();
      const refusal = page.locator('.field', { has: page.getByRole('combobox', { name: 'Add to members' }) }).getByRole('alert');
      await refusal.waitFor();
      await expect(refusal.locator('p').allTextContents()).resolves.toEqual(['Not found', expect.stringContaining('(404)')]);
      await checkAccessibility(page, 'project members, a refused addition');
      await expect(chips.getByRole('link').allTextContents()).resolves.toEqual(['Dana Scott']);
      await expect(project('Moon base')).resolves.toMatchObject({ members: [members['Dana Scott']] });
    });

    it('is usable with the keyboard alone: Tab to the menu, Enter to the list; Escape closes the dialog', async () => {
      await open('/', 'Fixture office');
      const projects = page.getByRole('navigation', { name: 'Resources' }).getByRole('link', { name: 'Projects' });
      const focused = () => projects.evaluate((element) => element === element.ownerDocument.activeElement);
      let reached = false;
      for (let presses = 0; presses < 10 && !reached; presses += 1) {
        await page.keyboard.press('Tab');
        reached = await focused();
      }
      expect(reached).toBe(true);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Projects' }).waitFor();
      await page.getByRole('region', { name: 'Projects' }).waitFor();

      await page.getByRole('button', { name: 'Credentials' }).focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Credentials' });
      await dialog.waitFor();
      await expect(dialog.getByLabel('Bearer token').evaluate((element) => element === element.ownerDocument.activeElement)).resolves.toBe(true);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
    });

    it('does not overflow at 390 px: the project form, the create form, the list with its filters', async () => {
      await page.setViewportSize(VIEWPORTS.mobile);
      const { _id } = await project('Moon base');
      await open(`/project/${_id}`, 'Project: Moon base');
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'project-edit-form-390', { fullPage: true });
      await checkAccessibility(page, 'project at 390 px');
      await open('/project/new', 'New project');
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      await checkAccessibility(page, 'create project at 390 px');
      await open('/project', 'Projects');
      await page.getByRole('region', { name: 'Projects' }).waitFor();
      // The filters start folded on a phone: open them (two date ranges and a picker among them).
      await page.getByText('Filters', { exact: true }).click();
      await page.getByLabel('Stage').waitFor();
      await expect(page.evaluate<number>('document.documentElement.scrollWidth')).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'project-list-390', { fullPage: true });
      await checkAccessibility(page, 'project list with its filters at 390 px');
      await page.setViewportSize(VIEWPORTS.desktop);
    });

    it('met no uncaught error, CSP violation or console error on the way', () => {
      expect(problems.list).toEqual([]);
    });

    it('made no request but to the generated routes and its own page, assets and metadata', () => {
      expect(log.outsideRoutes(table, { allowedPrefixes: ['/admin'] })).toEqual([]);
      expect(log.requests.filter((entry) => !entry.path.startsWith('/admin')).length).toBeGreaterThan(10);
    });
  });
}
