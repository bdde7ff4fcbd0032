import { Module } from '@nestjs/common';
import { MongooseModule, Prop, Schema } from '@nestjs/mongoose';
import { Test } from '@nestjs/testing';
import type { Page } from 'playwright-core';
import { BackOfficeModule } from '../../../src/back-office/index.js';
import { GeneratedResource, ModelRoutesModule } from '../../../src/index.js';
import { openBackOffice, startBackOfficeSession, type BackOfficeSession } from '../../support/back-office-session.js';
import { checkAccessibility, describeBrowser } from '../../support/browser.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function backOfficeSubtypesBrowserSpec(): void {
  /** The form of a resource with sub-types (Mongoose discriminators): its fields switch by the key (issue 42, item 2). */
  @Schema()
  class Novel {
    @Prop({ required: true }) isbn!: string;
  }

  @Schema()
  class Tee {
    @Prop({ required: true, enum: ['S', 'M', 'L'] }) size!: string;
    @Prop() color?: string;
  }

  @GeneratedResource({ path: 'item', plural: 'items', discriminators: [Novel, Tee] })
  @Schema({ discriminatorKey: 'kind' })
  class Item {
    @Prop({ required: true }) name!: string;
  }

  const engine = useEngine();

  describeBrowser('the back office in a browser (sub-types)', () => {
    let session: BackOfficeSession;
    let page: Page;
    const http = () => session.http();

    beforeAll(async () => {
      @Module({
        imports: [
          MongooseModule.forRoot(engine.get().uri, { dbName: engine.dbName('back_office_subtypes') }),
          ModelRoutesModule.forRoot({ resources: [Item] }),
          BackOfficeModule.forRoot({ path: '/admin' }),
        ],
      })
      class SubTypesModule {}
      session = await startBackOfficeSession(await Test.createTestingModule({ imports: [SubTypesModule] }).compile());
      ({ page } = session);
    }, 60000);

    afterAll(() => session?.close());

    it("switches the create form's fields by the key, and creates the sub-type chosen", async () => {
      await openBackOffice(session, '/item/new', 'New item');
      const kind = page.getByLabel('Kind', { exact: true });
      await expect(kind.locator('option').allTextContents()).resolves.toEqual(['Novel', 'Tee']);
      await expect(kind.inputValue()).resolves.toBe('Novel');
      await expect(page.getByLabel('Isbn').count()).resolves.toBe(1);
      await expect(page.getByLabel('Size').count()).resolves.toBe(0);

      await kind.selectOption('Tee');
      await page.getByLabel('Size').waitFor();
      await expect(page.getByLabel('Isbn').count()).resolves.toBe(0);
      await checkAccessibility(page, 'create item of a sub-type');
      await page.getByLabel('Name').fill('Plain tee');
      await page.getByLabel('Size').selectOption('M');
      await page.getByRole('button', { name: 'Create item' }).click();
      await page.getByRole('heading', { level: 1, name: /^Item: / }).waitFor();
      const { body } = await http().get('/items').query({ kind: 'Tee' }).expect(200);
      expect(body.result).toEqual([{ _id: expect.any(String), kind: 'Tee', name: 'Plain tee', size: 'M' }]);
    });

    it("shows a document's own sub-type's fields, its key not editable, and saves a change of them", async () => {
      const { body: novel } = await http().post('/item').send({ kind: 'Novel', name: 'Dune', isbn: '978-0441013593' }).expect(201);
      await openBackOffice(session, `/item/${String(novel._id)}`, /^Item: /);
      await expect(page.locator('.sub-type').textContent()).resolves.toBe('Kind: Novel');
      await expect(page.getByLabel('Kind', { exact: true }).count()).resolves.toBe(0);
      await expect(page.getByLabel('Size').count()).resolves.toBe(0);
      await page.getByLabel('Isbn').fill('978-0000000000');
      const patched = page.waitForResponse((response) => response.request().method() === 'PATCH');
      await page.getByRole('button', { name: 'Save' }).click();
      expect((await patched).status()).toBe(200);
      expect((await patched).request().postDataJSON()).toEqual({ isbn: '978-0000000000' });
      expect(
        (
          await http()
            .get(`/item/${String(novel._id)}`)
            .expect(200)
        ).body.isbn,
      ).toBe('978-0000000000');
    });
  });
}
