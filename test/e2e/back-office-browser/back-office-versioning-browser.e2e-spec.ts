import { Module, VersioningType, type VersioningOptions } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { ModelRoutesModule } from '../../../src/index.js';
import { Member } from '../../fixtures/back-office-models.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { describeBrowser } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeVersioningBrowserSpec(): void {
  /**
   * The back office of versioned routes: whatever carries the version (the path, a header), the
   * page finds the routes and sends each request where the app serves it.
   */
  const engine = useEngine();

  async function start(name: string, versioning: VersioningOptions): Promise<BackOfficeSession> {
    @Module({
      imports: [
        MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName(name) }),
        ModelRoutesModule.forRoot({ resources: [Member], version: '2' }),
        BackOfficeModule.forRoot({ title: 'Versioned office' }),
      ],
    })
    class VersionedModule {}
    return startBackOfficeSession(await Test.createTestingModule({ imports: [VersionedModule] }).compile(), (app) => app.enableVersioning(versioning));
  }

  const CASES: Array<[string, VersioningOptions, (path: string) => string, Record<string, string>]> = [
    ['URI versioning', { type: VersioningType.URI }, (path) => `/v2${path}`, {}],
    ['header versioning', { type: VersioningType.HEADER, header: 'X-Api-Version' }, (path) => path, { 'x-api-version': '2' }],
  ];

  for (const [name, versioning, at, headers] of CASES)
    describeBrowser(`the back office with ${name} (in a browser)`, () => {
      let session: BackOfficeSession;

      beforeAll(async () => {
        session = await start(`back_office_${name.split(' ')[0].toLowerCase()}`, versioning);
        await request(session.app.getHttpServer()).post(at('/member')).set(headers).send({ name: 'Ada Lovelace' }).expect(201);
      }, 60000);

      afterAll(() => session?.close());

      it('lists and opens the documents through the versioned routes', async () => {
        const { page } = session;
        const search = page.waitForRequest((candidate) => candidate.method() === 'GET' && new URL(candidate.url()).pathname === at('/members'));
        await openBackOffice(session, '/member', 'Members');
        expect((await search).headers()).toMatchObject(headers);
        const open = page.waitForRequest((candidate) => candidate.method() === 'GET' && new URL(candidate.url()).pathname.startsWith(at('/member/')));
        await page.getByRole('link', { name: 'Ada Lovelace' }).click();
        await page.getByRole('heading', { level: 1, name: /Ada Lovelace/ }).waitFor();
        expect((await open).headers()).toMatchObject(headers);
        expect(session.problems.list).toEqual([]);
      });
    });
}
