import { Module } from '@nestjs/common';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Page } from 'playwright-core';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { FileProp, FileRef, GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { describeBrowser } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';
import { makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeFilesBrowserSpec(): void {
  /**
   * The back office's file previews (issue 23, item 3): an object URL is of the app's own origin,
   * so an SVG turned into one and opened as a page ("open image in new tab") runs its script there.
   * Only raster images are previewed; each object URL is revoked once its image has loaded; a
   * download's blob is typed as bytes. The page's object URLs are recorded by an init script.
   */
  @GeneratedResource()
  @Schema()
  class Emblem {
    @Prop({ required: true }) name!: string;
    @FileProp({ accept: ['image/png', 'image/svg+xml'] }) images?: FileRef[];
  }

  const SVG = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><script>document.title = "owned"</script><rect width="8" height="8"/></svg>',
  );

  interface RecordedUrl {
    url: string;
    type: string;
    revoked: boolean;
  }

  /** Records every object URL the page makes, with its blob's type, and whether it was revoked. */
  function recordObjectUrls(): void {
    const made: RecordedUrl[] = [];
    (globalThis as unknown as { objectUrls: RecordedUrl[] }).objectUrls = made;
    const create = URL.createObjectURL.bind(URL);
    const revoke = URL.revokeObjectURL.bind(URL);
    URL.createObjectURL = (object: Blob) => {
      const url = create(object);
      made.push({ url, type: object.type, revoked: false });
      return url;
    };
    URL.revokeObjectURL = (url: string) => {
      const entry = made.find((candidate) => candidate.url === url);
      if (entry) entry.revoked = true;
      revoke(url);
    };
  }

  const objectUrls = (page: Page) => page.evaluate(() => (globalThis as unknown as { objectUrls: RecordedUrl[] }).objectUrls);

  const engine = useEngine();

  describeBrowser("the back office's file previews (in a browser)", () => {
    let session: BackOfficeSession;
    let page: Page;
    const http = () => session.http();

    beforeAll(async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_files') }),
          ModelRoutesModule.forRoot({ resources: [Emblem] }),
          BackOfficeModule.forRoot({ path: '/admin', title: 'Files office' }),
        ],
      })
      class FilesModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [FilesModule] }).compile());
      page = session.page;
      await page.addInitScript(recordObjectUrls);
    }, 60000);

    afterAll(() => session?.close());

    it('previews a PNG and revokes its object URL once loaded; shows no preview of an SVG and never makes an SVG object URL', async () => {
      const id = (await http().post('/emblem').send({ name: 'Crest' }).expect(201)).body._id as string;
      await http()
        .post(`/emblem/${id}/images`)
        .set('Content-Type', 'image/svg+xml')
        .set('Content-Disposition', 'attachment; filename="crest.svg"')
        .send(SVG)
        .expect(201);
      await http()
        .post(`/emblem/${id}/images`)
        .set('Content-Type', 'image/png')
        .set('Content-Disposition', 'attachment; filename="crest.png"')
        .send(await makeImage('png'))
        .expect(201);
      await openBackOffice(session, `/emblem/${id}`, 'Emblem: Crest');

      const image = page.getByRole('img', { name: 'Images of Crest: crest.png' });
      await image.waitFor();
      // The SVG says so from the start, and is never fetched into an object URL.
      const svgItem = page.getByRole('listitem').filter({ hasText: 'crest.svg' });
      await expect(svgItem.getByText('No preview').count()).resolves.toBe(1);
      await expect(svgItem.getByRole('img').count()).resolves.toBe(0);
      expect((await objectUrls(page)).map((entry) => entry.type)).toEqual(['image/png']);

      await page.waitForFunction(() =>
        (globalThis as unknown as { objectUrls: RecordedUrl[] }).objectUrls.some((entry) => entry.type === 'image/png' && entry.revoked),
      );
      // Revoked: the URL no longer opens as a page ("open image in new tab").
      const src = (await image.getAttribute('src'))!;
      expect(src).toMatch(/^blob:/);
      const tab = await page.context().newPage();
      await expect(
        tab.goto(src).then(
          () => 'opened',
          () => 'refused',
        ),
      ).resolves.toBe('refused');
      await tab.close();

      // A download's object URL holds bytes, not an SVG the browser would render at the app's origin.
      const download = page.waitForEvent('download');
      await svgItem.getByRole('button', { name: 'Download crest.svg' }).click();
      await download;
      expect((await objectUrls(page)).map((entry) => entry.type)).toEqual(['image/png', 'application/octet-stream']);
      await expect(page.title()).resolves.not.toBe('owned');
      expect(session.problems.list).toEqual([]);
    });
  });
}
