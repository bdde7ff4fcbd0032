import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule } from '../../../src/index.js';
import { BEARER_TOKEN, BearerGuard, Member, Project } from '../../fixtures/back-office-models.js';
import { startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeGuardedBrowserSpec(): void {
  /**
   * The back office with `guards` on its metadata route: the page loads (it holds no data), says
   * that it needs credentials, and shows the app once the user enters them; a wrong token is
   * refused as the first one was.
   */
  const engine = useEngine();

  describeBrowser('the back office whose metadata is guarded (in a browser)', () => {
    let session: BackOfficeSession;

    beforeAll(async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_guarded') }),
          ModelRoutesModule.forRoot({ resources: [Member, Project] }),
          BackOfficeModule.forRoot({ title: 'Guarded office', guards: [new BearerGuard()] }),
        ],
      })
      class GuardedModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [GuardedModule] }).compile());
    }, 60000);

    afterAll(() => session?.close());

    async function enterToken(token: string): Promise<void> {
      const { page } = session;
      await page.getByRole('alert').getByRole('button', { name: 'Enter credentials' }).click();
      const dialog = page.getByRole('dialog', { name: 'Credentials' });
      await dialog.getByLabel('Bearer token').fill(token);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
    }

    it('asks for credentials, refuses a wrong token, and opens once the right one is entered', async () => {
      const { page } = session;
      await page.goto(`${session.base}/admin`);
      await page.getByRole('heading', { level: 1, name: 'Not signed in: could not load the back office' }).waitFor();
      await checkAccessibility(page, 'guarded metadata, no credentials');
      await expect(page.getByRole('navigation', { name: 'Resources' }).getByRole('link').count()).resolves.toBe(0);

      const refused = page.waitForResponse((response) => response.url().endsWith('/admin/metadata'));
      await enterToken('wrong');
      expect((await refused).status()).toBe(401);
      await page.getByRole('heading', { level: 1, name: 'Not signed in: could not load the back office' }).waitFor();

      await enterToken(BEARER_TOKEN);
      await page.getByRole('heading', { level: 1, name: 'Guarded office' }).waitFor();
      await expect(page.getByRole('navigation', { name: 'Resources' }).getByRole('link').allTextContents()).resolves.toEqual(['Members', 'Projects']);
      await checkAccessibility(page, 'guarded metadata, signed in');
      expect(session.problems.list).toEqual([]);
      expect(session.log.outsideRoutes(session.table, { allowedPrefixes: ['/admin'] })).toEqual([]);
    });
  });
}
