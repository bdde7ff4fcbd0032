import { ConflictException, Injectable } from '@nestjs/common';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { DocumentBuilder } from '@nestjs/swagger';
import {
  GeneratedResource,
  ModelRoutesModule,
  getModelRepositoryToken,
  type AfterWriteContext,
  type ModelRepository,
  type ResourceHooks,
} from '../../../src/index.js';
import { ModelRoutesConfigError } from '../../../src/errors/model-routes-config.error.js';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';

/** Issue 28, item 6: history, every write's state kept, readable and restorable through the routes, bounded. */
export function historySpec(): void {
  const engine = useEngine();

  @Schema()
  class Note {
    @Prop({ required: true }) text!: string;
  }

  @GeneratedResource({
    path: 'manuscript',
    plural: 'manuscripts',
    hidden: ['secret'],
    history: { keep: 4, actor: (request) => request.headers['x-user'] },
  })
  @Schema({ timestamps: true })
  class Manuscript {
    @Prop({ required: true }) title!: string;
    @Prop() body?: string;
    @Prop() secret?: string;
    @Prop({ type: [SchemaFactory.createForClass(Note)] }) notes?: Note[];
  }

  /** An after-hook that refuses a title once the write is stored: the write stays, and so does its version. */
  @Injectable()
  class ChapterHooks implements ResourceHooks<Chapter> {
    afterUpdate({ document }: AfterWriteContext<Chapter>) {
      if (document.title === 'boom') throw new ConflictException('The after-hook refused this title');
    }
  }

  @GeneratedResource({ path: 'chapter', plural: 'chapters', history: true, hooks: ChapterHooks })
  @Schema()
  class Chapter {
    @Prop({ required: true }) title!: string;
  }

  /** A resource of the same app without history: no history route, none documented. */
  @GeneratedResource({ path: 'margin', plural: 'margins' })
  @Schema()
  class Margin {
    @Prop() text?: string;
  }

  let t: TestApp;
  let repository: ModelRepository<Manuscript>;

  beforeAll(async () => {
    t = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Manuscript, Chapter, Margin] }) });
    repository = t.app.get(getModelRepositoryToken(Manuscript));
  });
  afterAll(() => t?.close());

  const stored = (id: string) =>
    t.connection
      .db!.collection('manuscripts_history')
      .find({ document: new Types.ObjectId(id) })
      .sort({ version: 1 })
      .toArray();
  const as = (user: string) => ({
    post: (path: string) => t.http().post(path).set('x-user', user),
    patch: (path: string) => t.http().patch(path).set('x-user', user),
  });
  /** A manuscript written by the repository (a secret set as server code sets one), then changed twice through the routes. */
  async function manuscript(): Promise<string> {
    const id = String((await repository.create({ title: 'Draft', body: 'first', secret: 's0' }))._id);
    await as('ada').patch(`/manuscript/${id}`).send({ title: 'Second' }).expect(200);
    await as('grace').patch(`/manuscript/${id}`).send({ body: 'third', title: 'Third' }).expect(200);
    return id;
  }

  it(
    'keeps the state of every write, with when, who, which route, the operation and the changed paths; the latest first; hidden fields ' +
      'kept, never answered',
    async () => {
      const id = await manuscript();
      const { body } = await t.http().get(`/manuscript/${id}/history`).expect(200);
      expect(body.status).toEqual({ count: 3, limit: 20, skip: 0 });
      expect(body.result).toEqual([
        {
          version: 2,
          at: expect.any(String),
          by: 'grace',
          route: 'PATCH /manuscript/:manuscript_id',
          operation: 'update',
          changed: ['body', 'title'],
          document: expect.objectContaining({ _id: id, title: 'Third', body: 'third' }),
        },
        expect.objectContaining({
          version: 1,
          by: 'ada',
          operation: 'update',
          changed: ['title'],
          document: expect.objectContaining({ title: 'Second', body: 'first' }),
        }),
        // Written by code outside a request: no route, no actor.
        { version: 0, at: expect.any(String), operation: 'create', document: expect.objectContaining({ title: 'Draft', body: 'first' }) },
      ]);
      expect(JSON.stringify(body)).not.toContain('s0');
      expect(JSON.stringify(body)).not.toContain('"__v"');
      // Kept whole in the history's collection.
      expect((await stored(id)).map((entry) => (entry.state as { secret?: string }).secret)).toEqual(['s0', 's0', 's0']);
      const page = await t.http().get(`/manuscript/${id}/history?limit=1&skip=1`).expect(200);
      expect(page.body.result.map((entry: { version: number }) => entry.version)).toEqual([1]);
    },
  );

  it('keeps the version of a write whose after-hook fails: the history runs before the after-hook (the write is stored, not undone)', async () => {
    const chapters = t.app.get<ModelRepository<Chapter>>(getModelRepositoryToken(Chapter));
    const id = String((await chapters.create({ title: 'Opening' }))._id);
    const refused = await t.http().patch(`/chapter/${id}`).send({ title: 'boom' }).expect(409);
    expect(refused.body.message).toContain('The after-hook refused');
    expect(await chapters.findOne(id)).toMatchObject({ title: 'boom' });
    const { body } = await t.http().get(`/chapter/${id}/history`).expect(200);
    expect(
      body.result.map(({ version, operation, changed, document }: { version: number; operation: string; changed?: string[]; document: Chapter }) => ({
        version,
        operation,
        changed,
        title: document.title,
      })),
    ).toEqual([
      { version: 1, operation: 'update', changed: ['title'], title: 'boom' },
      { version: 0, operation: 'create', changed: undefined, title: 'Opening' },
    ]);
  });

  it('restores a version: every field as it was (hidden ones too), a new version of its own ("revert"), If-Match honoured', async () => {
    const id = await manuscript();
    await repository.update(id, { secret: 's1' });
    const tag = (await t.http().get(`/manuscript/${id}`).expect(200)).headers.etag as string;
    await t.http().patch(`/manuscript/${id}`).send({ body: 'later' }).expect(200);
    // Versions 1 to 4 are kept (keep: 4): version 1 is the first PATCH's state.
    await expectRefusedUnchanged(t.connection, () => t.http().post(`/manuscript/${id}/history/restore?version=1`).set('If-Match', tag), {
      status: 412,
      code: 'MR_PRECONDITION_FAILED',
    });
    const restored = await as('ada').post(`/manuscript/${id}/history/restore?version=1`).expect(200);
    expect(restored.body).toMatchObject({ _id: id, title: 'Second', body: 'first' });
    expect(restored.body.secret).toBeUndefined();
    const raw = await t.connection.db!.collection('manuscripts').findOne({ _id: new Types.ObjectId(id) });
    expect(raw).toMatchObject({ title: 'Second', body: 'first', secret: 's0', __v: 5 });
    const [latest] = (await t.http().get(`/manuscript/${id}/history`).expect(200)).body.result;
    expect(latest).toMatchObject({
      version: 5,
      by: 'ada',
      operation: 'revert',
      route: 'POST /manuscript/:manuscript_id/history/restore',
      changed: expect.arrayContaining(['title', 'body', 'secret']),
    });
  });

  it('keeps the latest `keep` versions of each document', async () => {
    const id = await manuscript();
    for (const title of ['4', '5', '6']) await t.http().patch(`/manuscript/${id}`).send({ title }).expect(200);
    const { body } = await t.http().get(`/manuscript/${id}/history`).expect(200);
    expect(body.result.map((entry: { version: number }) => entry.version)).toEqual([5, 4, 3, 2]);
    expect(body.status.count).toBe(4);
    await expectRefusedUnchanged(t.connection, () => t.http().post(`/manuscript/${id}/history/restore?version=0`), {
      status: 404,
      code: 'MR_NOT_FOUND',
      details: [{ path: 'version', message: 'no such version' }],
    });
  });

  it('the writes of one field are versions too; a delete keeps the last state, after the last version', async () => {
    const id = await manuscript();
    await t.http().post(`/manuscript/${id}/notes`).send({ text: 'margin' }).expect(201);
    const [added] = (await t.http().get(`/manuscript/${id}/history?limit=1`).expect(200)).body.result;
    expect(added).toMatchObject({
      version: 3,
      operation: 'addElement',
      changed: ['notes'],
      document: { notes: [expect.objectContaining({ text: 'margin' })] },
    });
    await t.http().delete(`/manuscript/${id}`).expect(200);
    const entries = await stored(id);
    expect(entries.at(-1)).toMatchObject({
      version: 4,
      operation: 'delete',
      route: 'DELETE /manuscript/:manuscript_id',
      state: expect.objectContaining({ title: 'Third', secret: 's0' }),
    });
    // The document is gone: so is its route's history (the repository's entries stay, bounded by keep).
    expect((await t.http().get(`/manuscript/${id}/history`).expect(404)).body.code).toBe('MR_NOT_FOUND');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['skip=-1', 'skip'],
    ['limit=1e2', 'limit'],
    ['sort=version', 'sort'],
    ['limit=1&limit=2', 'limit'],
  ])('GET .../history?%s is a 400 MR_INVALID_QUERY naming %s', async (query, path) => {
    const id = await manuscript();
    const response = await expectRefusedUnchanged(t.connection, () => t.http().get(`/manuscript/${id}/history?${query}`), {
      status: 400,
      code: 'MR_INVALID_QUERY',
    });
    expect(response.body.details[0].path).toBe(path);
  });

  it.each([
    ['', 'version'],
    ['version=x', 'version'],
    ['version=-1', 'version'],
    ['version=1&force=true', 'force'],
  ])('POST .../history/restore?%s is a 400 MR_INVALID_QUERY naming %s, nothing written', async (query, path) => {
    const id = await manuscript();
    const response = await expectRefusedUnchanged(t.connection, () => t.http().post(`/manuscript/${id}/history/restore?${query}`), {
      status: 400,
      code: 'MR_INVALID_QUERY',
    });
    expect(response.body.details[0].path).toBe(path);
  });

  it('is documented in OpenAPI, and only for a resource with history', () => {
    const document = createModelRoutesDocument(t.app, new DocumentBuilder().build());
    expect(
      Object.keys(document.paths)
        .filter((path) => path.includes('history'))
        .sort(),
    ).toEqual([
      '/chapter/{chapter_id}/history',
      '/chapter/{chapter_id}/history/restore',
      '/manuscript/{manuscript_id}/history',
      '/manuscript/{manuscript_id}/history/restore',
    ]);
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/margin')).length).toBeGreaterThan(0);
  });

  it('needs the version key and a positive keep: else the start stops', () => {
    @GeneratedResource({ history: true })
    @Schema({ versionKey: false })
    class Unversioned {
      @Prop() title?: string;
    }
    @GeneratedResource({ history: { keep: 0 } })
    @Schema()
    class Forgetful {
      @Prop() title?: string;
    }
    expect(() => createResourceDefinition({ resource: Unversioned })).toThrow(ModelRoutesConfigError);
    expect(() => createResourceDefinition({ resource: Forgetful })).toThrow(/keep/);
  });
}
