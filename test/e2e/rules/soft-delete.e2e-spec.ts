import { Injectable } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { DocumentBuilder } from '@nestjs/swagger';
import {
  FileProp,
  FileRef,
  GeneratedResource,
  ModelRoutesModule,
  getModelRepositoryToken,
  type AfterWriteContext,
  type BeforeWriteContext,
  type ModelRepository,
  type ResourceHooks,
} from '../../../src/index.js';
import { ModelRoutesConfigError } from '../../../src/errors/model-routes-config.error.js';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { makeImage } from '../../support/images.js';

/** Issue 28, item 5: soft delete, its trash (search, restore, purge), and what references make of a deleted document. */
export function softDeleteSpec(): void {
  const engine = useEngine();

  /** What the hooks of Poem saw: `<phase>:<operation>`. */
  @Injectable()
  class Diary {
    readonly entries: string[] = [];
  }

  @Injectable()
  class PoemHooks implements ResourceHooks {
    constructor(private readonly diary: Diary) {}
    beforeUpdate({ operation }: BeforeWriteContext) {
      this.diary.entries.push(`before:update:${operation}`);
    }
    afterUpdate({ operation }: AfterWriteContext) {
      this.diary.entries.push(`after:update:${operation}`);
    }
    beforeDelete({ operation }: BeforeWriteContext) {
      this.diary.entries.push(`before:delete:${operation}`);
    }
    afterDelete({ operation }: AfterWriteContext) {
      this.diary.entries.push(`after:delete:${operation}`);
    }
  }

  @GeneratedResource({ path: 'poet', plural: 'poets', softDelete: true })
  @Schema()
  class Poet {
    @Prop({ required: true }) name!: string;
  }

  @GeneratedResource({
    path: 'poem',
    plural: 'poems',
    softDelete: true,
    hooks: PoemHooks,
    routes: { deleteMany: true },
    references: { author: { expand: true } },
  })
  @Schema()
  class Poem {
    @Prop({ required: true }) title!: string;
    @Prop({ type: Types.ObjectId, ref: 'Poet', onDelete: 'nullify' }) author?: Types.ObjectId;
    @FileProp({ maxSize: '1MB', accept: ['image/png'] }) cover?: FileRef;
  }

  /** A book keeps its poet: `restrict` holds on a soft delete too. */
  @GeneratedResource({ path: 'book', plural: 'books' })
  @Schema()
  class Book {
    @Prop({ required: true }) title!: string;
    @Prop({ type: Types.ObjectId, ref: 'Poet', onDelete: 'restrict' }) poet?: Types.ObjectId;
  }

  let t: TestApp;
  let diary: Diary;
  let png: Buffer;

  beforeAll(async () => {
    t = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Poet, Poem, Book], providers: [Diary] }) });
    diary = t.app.get(Diary);
    png = await makeImage('png', { width: 4, height: 4 });
  });
  afterAll(() => t?.close());

  const poet = async (name: string) => String((await t.http().post('/poet').send({ name }).expect(201)).body._id);
  const poem = async (title: string, values: Record<string, unknown> = {}) =>
    String(
      (
        await t
          .http()
          .post('/poem')
          .send({ title, ...values })
          .expect(201)
      ).body._id,
    );
  const raw = (collection: string, id: string) => t.connection.db!.collection(collection).findOne({ _id: new Types.ObjectId(id) });
  const titles = (body: { result: Array<{ title: string }> }) => body.result.map((doc) => doc.title).sort();

  it('DELETE marks the document and answers it; it is then out of get, search and its counts, and in the trash', async () => {
    const id = await poem('Ozymandias');
    const living = (await t.http().get(`/poem/${id}`).expect(200)).body;
    expect(living.deletedAt).toBeNull();
    const deleted = await t.http().delete(`/poem/${id}`).expect(200);
    expect(deleted.body).toMatchObject({ _id: id, title: 'Ozymandias', deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(await raw('poems', id)).toMatchObject({ title: 'Ozymandias', deletedAt: expect.any(Date) });
    expect((await t.http().get(`/poem/${id}`).expect(404)).body.code).toBe('MR_NOT_FOUND');
    const page = await t.http().get('/poems?title=Ozymandias').set('Prefer', 'count=exact').expect(200);
    expect(page.body.result).toEqual([]);
    const all = await t.http().get('/poems').set('Prefer', 'count=exact').expect(200);
    // The envelope's count is of the living documents.
    expect(all.body.status.count).toBe(all.body.result.length);
    const trash = await t.http().get('/poems/trash?title=Ozymandias').expect(200);
    expect(titles(trash.body)).toEqual(['Ozymandias']);
    // A second DELETE finds nothing: it is deleted already.
    expect((await t.http().delete(`/poem/${id}`).expect(404)).body.code).toBe('MR_NOT_FOUND');
  });

  it('a deleted document takes no write on any route: PUT, PATCH, its files, a second delete', async () => {
    const id = await poem('Kubla Khan');
    await t.http().put(`/poem/${id}/cover`).set('Content-Type', 'image/png').send(png).expect(200);
    await t.http().delete(`/poem/${id}`).expect(200);
    for (const send of [
      () => t.http().patch(`/poem/${id}`).send({ title: 'x' }),
      () => t.http().put(`/poem/${id}`).send({ title: 'x' }),
      () => t.http().put(`/poem/${id}/cover`).set('Content-Type', 'image/png').send(png),
      () => t.http().get(`/poem/${id}/cover`),
      () => t.http().delete(`/poem/${id}/cover`),
      () => t.http().get(`/poem/${id}/author`),
    ]) {
      await expectRefusedUnchanged(t.connection, send, { status: 404, code: 'MR_NOT_FOUND' });
    }
    // Its file is kept, for a restore.
    expect((await raw('poems', id))!.cover).toBeDefined();
  });

  it('restore brings the document back as it was, files included; purge deletes it for good, files included; both only from the trash', async () => {
    const id = await poem('Tintern Abbey');
    await t.http().put(`/poem/${id}/cover`).set('Content-Type', 'image/png').send(png).expect(200);
    // Not in the trash: neither restored nor purged.
    await expectRefusedUnchanged(t.connection, () => t.http().post(`/poem/${id}/restore`), { status: 404, code: 'MR_NOT_FOUND' });
    await expectRefusedUnchanged(t.connection, () => t.http().delete(`/poem/${id}/purge`), { status: 404, code: 'MR_NOT_FOUND' });
    await t.http().delete(`/poem/${id}`).expect(200);
    const restored = await t.http().post(`/poem/${id}/restore`).expect(200);
    expect(restored.body).toMatchObject({ _id: id, title: 'Tintern Abbey', deletedAt: null, cover: expect.objectContaining({ contentType: 'image/png' }) });
    await t.http().get(`/poem/${id}/cover`).expect(200);
    expect(titles((await t.http().get('/poems/trash?title=Tintern Abbey').expect(200)).body)).toEqual([]);
    await t.http().delete(`/poem/${id}`).expect(200);
    const files = () => t.connection.db!.collection('poems_files.files').countDocuments();
    const before = await files();
    const purged = await t.http().delete(`/poem/${id}/purge`).expect(200);
    expect(purged.body).toMatchObject({ _id: id, title: 'Tintern Abbey' });
    expect(await raw('poems', id)).toBeNull();
    expect(await files()).toBe(before - 1);
    await expectRefusedUnchanged(t.connection, () => t.http().post(`/poem/${id}/restore`), { status: 404, code: 'MR_NOT_FOUND' });
  });

  it('a restore and a purge take If-Match: the tag read before the delete is stale (the mark is a write), a 412, nothing written', async () => {
    const id = await poem('Dover Beach');
    const tag = (await t.http().get(`/poem/${id}`).expect(200)).headers.etag as string;
    await t.http().delete(`/poem/${id}`).set('If-Match', tag).expect(200);
    await expectRefusedUnchanged(t.connection, () => t.http().post(`/poem/${id}/restore`).set('If-Match', tag), {
      status: 412,
      code: 'MR_PRECONDITION_FAILED',
    });
    await expectRefusedUnchanged(t.connection, () => t.http().delete(`/poem/${id}/purge`).set('If-Match', tag), {
      status: 412,
      code: 'MR_PRECONDITION_FAILED',
    });
    const restored = await t.http().post(`/poem/${id}/restore`).expect(200);
    await t
      .http()
      .delete(`/poem/${id}`)
      .set('If-Match', restored.headers.etag as string)
      .expect(200);
    await t.http().delete(`/poem/${id}/purge`).expect(200);
  });

  it('hooks: a soft delete is a delete, a restore an update (operation "restore"), a purge a delete (operation "purge")', async () => {
    const id = await poem('The Tyger');
    diary.entries.length = 0;
    await t.http().delete(`/poem/${id}`).expect(200);
    await t.http().post(`/poem/${id}/restore`).expect(200);
    await t.http().delete(`/poem/${id}`).expect(200);
    await t.http().delete(`/poem/${id}/purge`).expect(200);
    expect(diary.entries).toEqual([
      'before:delete:delete',
      'after:delete:delete',
      'before:update:restore',
      'after:update:restore',
      'before:delete:delete',
      'after:delete:delete',
      'before:delete:purge',
      'after:delete:purge',
    ]);
  });

  describe('references to a deleted document', () => {
    it(
      'a new reference to it is refused as one to nothing; one written before reads as missing (forward route, expand); its reverse routes ' + 'are a 404',
      async () => {
        const keats = await poet('Keats');
        const ode = await poem('Ode to a Nightingale', { author: keats });
        await t.http().delete(`/poet/${keats}`).expect(200);
        const refused = await expectRefusedUnchanged(t.connection, () => t.http().post('/poem').send({ title: 'x', author: keats }), {
          status: 400,
          code: 'MR_REFERENCE_NOT_FOUND',
        });
        expect(refused.body.message).toContain(`'${keats}'`);
        // `nullify` waits for the purge: a restore finds the reference as it was.
        expect((await raw('poems', ode))!.author).toEqual(new Types.ObjectId(keats));
        expect((await t.http().get(`/poem/${ode}/author`).expect(404)).body.code).toBe('MR_REFERENCE_BROKEN');
        expect((await t.http().get(`/poem/${ode}?expand=author`).expect(200)).body.author).toBeNull();
        expect((await t.http().get(`/poet/${keats}/poems/author`).expect(404)).body.code).toBe('MR_NOT_FOUND');
        await t.http().post(`/poet/${keats}/restore`).expect(200);
        expect((await t.http().get(`/poem/${ode}?expand=author`).expect(200)).body.author).toMatchObject({ name: 'Keats' });
        // The purge applies the rules: nullify.
        await t.http().delete(`/poet/${keats}`).expect(200);
        await t.http().delete(`/poet/${keats}/purge`).expect(200);
        expect((await raw('poems', ode))!.author).toBeNull();
      },
    );

    it('restrict holds on a soft delete: a 409 MR_REFERENCED, nothing marked', async () => {
      const blake = await poet('Blake');
      await t.http().post('/book').send({ title: 'Songs', poet: blake }).expect(201);
      await expectRefusedUnchanged(t.connection, () => t.http().delete(`/poet/${blake}`), { status: 409, code: 'MR_REFERENCED' });
    });
  });

  it('a bulk delete marks each match; documents stored before soft delete was turned on (no field) are living', async () => {
    // As a collection written before `softDelete` was set holds them: no deletedAt at all.
    const { insertedId } = await t.connection.db!.collection('poems').insertOne({ title: 'Old Bulk', __v: 0 });
    await poem('New Bulk');
    expect(titles((await t.http().get('/poems?title[regex]=Bulk$').expect(200)).body)).toEqual(['New Bulk', 'Old Bulk']);
    const report = await t.http().delete('/poems?title[regex]=Bulk$').expect(200);
    expect(report.body).toMatchObject({ matched: 2, deleted: 2 });
    expect(await raw('poems', String(insertedId))).toMatchObject({ deletedAt: expect.any(Date) });
    expect(titles((await t.http().get('/poems/trash?title[regex]=Bulk$&sort=-deletedAt').expect(200)).body)).toEqual(['New Bulk', 'Old Bulk']);
  });

  it.each([
    ['a malformed id', 'zzz'],
    ['a NUL', '%00'],
    ['an id of 300 characters', 'a'.repeat(300)],
    ['an operator', '%7B%22%24ne%22%3A1%7D'],
  ])('restore, purge and the trash refuse %s in the error shape, nothing written', async (_label, id) => {
    for (const send of [() => t.http().post(`/poem/${id}/restore`), () => t.http().delete(`/poem/${id}/purge`)]) {
      await expectRefusedUnchanged(t.connection, send, { status: 400, code: 'MR_INVALID_ID' });
    }
    await expectRefusedUnchanged(t.connection, () => t.http().get(`/poems/trash?title[${id}]=1`), { status: 400, code: 'MR_INVALID_QUERY' });
  });

  it("the mark is the server's: a body that sets it is refused as any readonly field", async () => {
    await expectRefusedUnchanged(t.connection, () => t.http().post('/poem').send({ title: 'x', deletedAt: new Date().toISOString() }), {
      status: 400,
      code: 'MR_INVALID_BODY',
    });
  });

  it('in your own code: delete marks, restore, purge and trash are repository methods; a resource without soft delete has none', async () => {
    const poems = t.app.get<ModelRepository>(getModelRepositoryToken(Poem));
    const { _id } = await poems.create({ title: 'Scripted' });
    await poems.delete(String(_id));
    expect(await poems.findOne(String(_id))).toBeNull();
    expect((await poems.trash({ filter: { title: 'Scripted' }, limit: 5, skip: 0 })).result).toHaveLength(1);
    expect(await poems.restore(String(_id))).toMatchObject({ title: 'Scripted', deletedAt: null });
    await poems.delete(String(_id));
    expect(await poems.purge(String(_id))).toMatchObject({ title: 'Scripted' });
    const books = t.app.get<ModelRepository>(getModelRepositoryToken(Book));
    await expect(books.restore('x')).rejects.toThrow(/Book has no soft delete/);
  });

  it('the trash routes exist only for a resource with soft delete, and are documented', async () => {
    await t.http().get('/books/trash').expect(404);
    const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
    expect(
      Object.keys(document.paths)
        .filter((path) => /trash|restore|purge/.test(path))
        .sort(),
    ).toEqual(['/poem/{poem_id}/purge', '/poem/{poem_id}/restore', '/poems/trash', '/poet/{poet_id}/purge', '/poet/{poet_id}/restore', '/poets/trash']);
  });

  it('a soft delete field of another type stops the start', () => {
    @GeneratedResource({ softDelete: { field: 'gone' } })
    @Schema()
    class Verse {
      @Prop() gone?: boolean;
    }
    expect(() => createResourceDefinition({ resource: Verse })).toThrow(ModelRoutesConfigError);
    expect(() => createResourceDefinition({ resource: Verse })).toThrow(/'gone', which is a Boolean, not a Date/);
  });
}
