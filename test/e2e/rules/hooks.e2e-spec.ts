import { ConflictException, ForbiddenException, Injectable } from '@nestjs/common';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import type { Response } from 'supertest';
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
import SwaggerParser from '@apidevtools/swagger-parser';
import { DocumentBuilder } from '@nestjs/swagger';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { bootTestApp, type TestApp } from '../../support/app.js';
import { changedCollections, observe } from '../../support/db-snapshot.js';
import { useEngine } from '../../support/engine.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { makeImage } from '../../support/images.js';

/** Issue 28, item 1: lifecycle hooks, run by the repository around every write, on every surface that writes. */
export function hooksSpec(): void {
  const engine = useEngine();

  /** A service the hooks take by injection: where they write what they saw. */
  @Injectable()
  class Journal {
    readonly entries: string[] = [];
    readonly seen: Array<Record<string, unknown>> = [];
    /** The next before-hook of this operation refuses its write. */
    refuse?: string;
  }

  @Schema()
  class Leg {
    @Prop({ required: true }) port!: string;
  }

  @GeneratedResource({ path: 'crew', plural: 'crews' })
  @Schema()
  class Crew {
    @Prop({ required: true }) name!: string;
  }

  /** What a hook saw: `<phase>:<operation>[:<field>]`, then the context's other members. */
  const entry = (phase: string, { operation, field }: { operation: string; field?: string }) => [phase, operation, ...(field ? [field] : [])].join(':');

  @Injectable()
  class VoyageHooks implements ResourceHooks<Voyage> {
    constructor(private readonly journal: Journal) {}

    beforeCreate(context: BeforeWriteContext<Voyage>) {
      this.journal.entries.push(entry('before', context));
      this.journal.seen.push({ id: context.id, request: context.request !== undefined, data: { ...context.data } });
      if (context.data!.title === 'refused') throw new ForbiddenException('No such voyage');
      // A server-owned (readonly) field, set by the hook after the client's body was checked.
      context.data!.code = `V-${String(context.data!.title)}`;
    }

    afterCreate(context: AfterWriteContext<Voyage>) {
      this.after(context);
    }

    beforeUpdate(context: BeforeWriteContext<Voyage>) {
      this.journal.entries.push(entry('before', context));
      if (context.data?.title === 'refused' || this.refused(context.operation)) throw new ConflictException('Locked');
      // Changed in place: each document's own data.
      if (typeof context.data?.notes === 'string' && context.data.notes.startsWith('tally')) context.data.notes += '+';
      // Another object in place of the changes: what is written is what the hook returns.
      if (context.operation === 'update') return { ...context.data, touchedBy: 'hook' };
      return undefined;
    }

    afterUpdate(context: AfterWriteContext<Voyage>) {
      this.after(context);
    }

    async beforeDelete(context: BeforeWriteContext<Voyage>) {
      this.journal.entries.push(entry('before', context));
      if ((await context.current())?.title === 'keep' || this.refused(context.operation)) throw new ForbiddenException('Kept');
    }

    private refused(operation: string): boolean {
      if (this.journal.refuse !== operation) return false;
      this.journal.refuse = undefined;
      return true;
    }

    afterDelete(context: AfterWriteContext<Voyage>) {
      this.after(context);
    }

    private after(context: AfterWriteContext<Voyage>) {
      this.journal.entries.push(entry('after', context));
      this.journal.seen.push({ id: context.id, request: context.request !== undefined, keys: Object.keys(context.document).sort(), changed: context.changed });
    }
  }

  @GeneratedResource({
    path: 'voyage',
    plural: 'voyages',
    readonly: ['code', 'touchedBy'],
    hidden: ['ledger'],
    routes: { import: true, updateMany: true, deleteMany: true },
    hooks: VoyageHooks,
  })
  @Schema()
  class Voyage {
    @Prop({ required: true }) title!: string;
    @Prop() notes?: string;
    @Prop() code?: string;
    @Prop() touchedBy?: string;
    @Prop() ledger?: string;
    @Prop({ type: [{ type: Types.ObjectId, ref: 'Crew' }] }) crew?: Types.ObjectId[];
    @Prop({ type: [SchemaFactory.createForClass(Leg)] }) legs?: Leg[];
    @FileProp({ maxSize: '1MB', accept: ['image/png'] }) chart?: FileRef;
  }

  /** A provider of the application, outside the module: it injects the hooks the repository runs (the module exports them). */
  @Injectable()
  class Inspector {
    constructor(readonly hooks: VoyageHooks) {}
  }

  let t: TestApp;
  let journal: Journal;
  let repository: ModelRepository<Voyage>;
  let crew: string;
  let png: Buffer;

  beforeAll(async () => {
    t = await bootTestApp(engine, { modelRoutes: ModelRoutesModule.forRoot({ resources: [Crew, Voyage], providers: [Journal] }), providers: [Inspector] });
    journal = t.app.get(Journal);
    // One instance: the application's and the repository's.
    expect((t.app.get(Inspector).hooks as unknown as { journal: Journal }).journal).toBe(journal);
    repository = t.app.get(getModelRepositoryToken(Voyage));
    crew = String((await t.connection.model('Crew').create({ name: 'Ahab' }))._id);
    png = await makeImage('png', { width: 4, height: 4 });
  });
  afterAll(() => t?.close());

  /** Stores a voyage without hooks (as a seed would); answers its id. Then the journal is emptied. */
  async function voyage(values: Record<string, unknown> = {}): Promise<string> {
    const id = String((await repository.create({ title: 'Nantucket', ledger: 'secret', ...values }, { hooks: false }))._id);
    journal.entries.length = 0;
    journal.seen.length = 0;
    return id;
  }

  it(
    'create: the before-hook runs on the checked body and may set a readonly field; the after-hook sees the stored document without its hidden fields; ' +
      'the request is in the context',
    async () => {
      await voyage();
      const response = await t.http().post('/voyage').send({ title: 'Pequod' }).expect(201);
      expect(response.body).toMatchObject({ title: 'Pequod', code: 'V-Pequod' });
      expect(journal.entries).toEqual(['before:create', 'after:create']);
      expect(journal.seen).toEqual([
        { id: undefined, request: true, data: { title: 'Pequod' } },
        { id: response.body._id, request: true, keys: ['_id', 'code', 'crew', 'legs', 'title'], changed: undefined },
      ]);
    },
  );

  it("a before-hook's refusal reaches the client with its status and message in the error shape; nothing is written; the after-hook does not run", async () => {
    await voyage();
    const refused = await expectRefusedUnchanged(t.connection, () => t.http().post('/voyage').send({ title: 'refused' }), {
      status: 403,
      code: 'MR_FORBIDDEN',
    });
    expect([refused.body.message, journal.entries]).toEqual(['No such voyage', ['before:create']]);
    const id = await voyage();
    const locked = await expectRefusedUnchanged(t.connection, () => t.http().patch(`/voyage/${id}`).send({ title: 'refused' }), {
      status: 409,
      code: 'MR_HTTP_ERROR',
    });
    expect([locked.body.message, journal.entries]).toEqual(['Locked', ['before:update']]);
    const kept = await voyage({ title: 'keep' });
    const deletion = await expectRefusedUnchanged(t.connection, () => t.http().delete(`/voyage/${kept}`), { status: 403, code: 'MR_FORBIDDEN' });
    expect([deletion.body.message, journal.entries]).toEqual(['Kept', ['before:delete']]);
  });

  /** Every route that writes a voyage, and the operation its hooks are told. */
  const SURFACES: Array<[string, (id: string) => Promise<Response>, string]> = [
    ['PUT', (id) => t.http().put(`/voyage/${id}`).send({ notes: 'a' }), 'update'],
    ['PATCH', (id) => t.http().patch(`/voyage/${id}`).send({ notes: 'b' }), 'update'],
    ['DELETE', (id) => t.http().delete(`/voyage/${id}`), 'delete'],
    ['add a reference', (id) => t.http().post(`/voyage/${id}/crew/${crew}`), 'addReference:crew'],
    [
      'remove a reference',
      async (id) => {
        await repository.addReference(id, 'crew', new Types.ObjectId(crew), { hooks: false });
        return t.http().delete(`/voyage/${id}/crew/${crew}`);
      },
      'removeReference:crew',
    ],
    ['add an element', (id) => t.http().post(`/voyage/${id}/legs`).send({ port: 'Azores' }), 'addElement:legs'],
    [
      'modify an element',
      async (id) =>
        t
          .http()
          .patch(`/voyage/${id}/legs/${await firstLeg(id)}`)
          .send({ port: 'Cape' }),
      'updateElement:legs',
    ],
    ['remove an element', async (id) => t.http().delete(`/voyage/${id}/legs/${await firstLeg(id)}`), 'removeElement:legs'],
    ['upload a file', (id) => t.http().put(`/voyage/${id}/chart`).set('Content-Type', 'image/png').send(png), 'setFile:chart'],
    [
      'delete a file',
      async (id) => {
        await t.http().put(`/voyage/${id}/chart`).set('Content-Type', 'image/png').send(png).expect(200);
        journal.entries.length = 0;
        journal.seen.length = 0;
        return t.http().delete(`/voyage/${id}/chart`);
      },
      'removeFile:chart',
    ],
  ];

  async function firstLeg(id: string): Promise<string> {
    const stored = (await t.connection.model('Voyage').findById(id).lean()) as { legs?: Array<{ _id: unknown }> } | null;
    return String(stored!.legs![0]._id);
  }

  it.each(SURFACES)(
    '%s: the hooks of its phase run once each, before then after, told the operation, the id and what changed',
    async (_label, send, operation) => {
      const id = await voyage({ legs: [{ port: 'Boston' }] });
      const response = await send(id);
      expect(response.status).toBeLessThan(300);
      const phase = operation === 'delete' ? 'delete' : 'update';
      const [op, field] = operation.split(':');
      expect(journal.entries).toEqual([entry('before', { operation: op, field }), entry('after', { operation: op, field })]);
      const changed = phase === 'delete' ? undefined : field ? [field] : ['notes', 'touchedBy'];
      expect(journal.seen).toEqual([expect.objectContaining({ id, request: true, changed })]);
      expect(journal.seen[0].keys).not.toContain('ledger');
      // What the update's before-hook returned was written.
      if (operation === 'update') expect(await t.connection.model('Voyage').findById(id).lean()).toMatchObject({ touchedBy: 'hook' });
    },
  );

  it.each(SURFACES)(
    "%s: a refusal of its before-hook answers the hook's status, and leaves every collection as it was (the files' too); no after-hook",
    async (_label, send, operation) => {
      const id = await voyage({ legs: [{ port: 'Boston' }] });
      const [op, field] = operation.split(':');
      const status = op === 'delete' ? 403 : 409;
      journal.refuse = op;
      const { response, before, after } = await observe(t.connection, () => send(id));
      expect(response.status).toBe(status);
      expect(journal.entries.filter((line) => line.startsWith('after'))).toEqual([]);
      expect(journal.entries).toContain(entry('before', { operation: op, field }));
      // Two surfaces first write what they then take away (a reference, a file): the voyage and the files differ by that write alone.
      if (op === 'removeReference') expect(after.raw.get('voyages')!.find((doc) => String(doc._id) === id)!.crew).toEqual([new Types.ObjectId(crew)]);
      else if (op === 'removeFile') expect(after.raw.get('voyages')!.find((doc) => String(doc._id) === id)!.chart).toBeDefined();
      else expect(changedCollections(before, after)).toEqual([]);
    },
  );

  it(
    'the OpenAPI document says a write may be refused by the hooks (a 4XX range on each route that writes a voyage); reads and other ' + 'resources have none',
    async () => {
      const document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('hooks').build());
      await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
      const ranges = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item as Record<string, { responses?: Record<string, unknown> }>)
          .filter(([, operation]) => operation.responses?.['4XX'])
          .map(([method]) => `${method.toUpperCase()} ${path}`),
      );
      expect(ranges.sort()).toEqual(
        [
          'POST /voyage',
          'PUT /voyage/{voyage_id}',
          'PATCH /voyage/{voyage_id}',
          'DELETE /voyage/{voyage_id}',
          'POST /voyage/{voyage_id}/crew/{crew_id}',
          'DELETE /voyage/{voyage_id}/crew/{crew_id}',
          'POST /voyage/{voyage_id}/legs',
          'PATCH /voyage/{voyage_id}/legs/{element_id}',
          'DELETE /voyage/{voyage_id}/legs/{element_id}',
          'PUT /voyage/{voyage_id}/chart',
          'DELETE /voyage/{voyage_id}/chart',
        ].sort(),
      );
    },
  );

  it('an import runs the hooks of each row it writes (a row a hook refuses is reported with that refusal); its dry run runs none', async () => {
    await voyage();
    const rows = [{ title: 'One' }, { title: 'refused' }, { title: 'Two' }];
    const { response: dry, before, after } = await observe(t.connection, () => t.http().post('/voyages/import?dryRun=true').send(rows));
    expect([dry.status, after.text === before.text, journal.entries]).toEqual([200, true, []]);
    const response = await t.http().post('/voyages/import').send(rows).expect(200);
    expect(response.body).toMatchObject({ created: 2, refused: 1, errors: [{ row: 2, code: 'MR_FORBIDDEN', message: 'No such voyage' }] });
    // Four rows at a time: their hooks interleave.
    expect(journal.entries.sort()).toEqual(['after:create', 'after:create', 'before:create', 'before:create', 'before:create']);
    expect(
      await t.connection
        .model('Voyage')
        .find({ title: { $in: ['One', 'Two'] } })
        .sort({ title: 1 })
        .lean(),
    ).toEqual([expect.objectContaining({ code: 'V-One' }), expect.objectContaining({ code: 'V-Two' })]);
  });

  it('a bulk change runs the hooks of each document it writes; a document a hook refuses is reported refused, the others written', async () => {
    const [a, b, kept] = [await voyage({ notes: 'bulk' }), await voyage({ notes: 'bulk' }), await voyage({ notes: 'bulk', title: 'keep' })];
    journal.entries.length = 0;
    const updated = await t.http().patch('/voyages?notes=bulk').send({ ledger: undefined, notes: 'bulk' }).expect(200);
    expect(updated.body).toMatchObject({ matched: 3, updated: 3 });
    expect(journal.entries.filter((line) => line.startsWith('before'))).toEqual(['before:update', 'before:update', 'before:update']);
    journal.entries.length = 0;
    const deleted = await t.http().delete('/voyages?notes=bulk').expect(200);
    expect(deleted.body).toMatchObject({ matched: 3, deleted: 2, refused: 1 });
    expect(deleted.body.items).toEqual(
      expect.arrayContaining([
        { id: kept, result: 'refused', code: 'MR_FORBIDDEN', message: 'Kept' },
        { id: a, result: 'deleted' },
        { id: b, result: 'deleted' },
      ]),
    );
    expect(journal.entries.sort()).toEqual(['after:delete', 'after:delete', 'before:delete', 'before:delete', 'before:delete']);
  });

  it("a bulk update gives each document's hook its own data: a change in place is that document's alone", async () => {
    await Promise.all([voyage({ notes: 'tallied' }), voyage({ notes: 'tallied' }), voyage({ notes: 'tallied' })]);
    expect((await t.http().patch('/voyages?notes=tallied').send({ notes: 'tally' }).expect(200)).body).toMatchObject({ matched: 3, updated: 3 });
    expect(
      (
        await t.connection
          .model('Voyage')
          .find({ notes: /^tally/ })
          .lean()
      ).map((doc) => (doc as { notes?: string }).notes),
    ).toEqual(['tally+', 'tally+', 'tally+']);
  });

  it('your own repository calls run them too, without a request; { hooks: false } skips them', async () => {
    await voyage();
    const created = await repository.create({ title: 'Rachel' });
    expect(created).toMatchObject({ code: 'V-Rachel' });
    await repository.update(String(created._id), { notes: 'x' });
    await repository.delete(String(created._id));
    expect(journal.entries).toEqual(['before:create', 'after:create', 'before:update', 'after:update', 'before:delete', 'after:delete']);
    expect(journal.seen.every((seen) => seen.request === false)).toBe(true);
    journal.entries.length = 0;
    const quiet = await repository.create({ title: 'refused' }, { hooks: false });
    await repository.update(String(quiet._id), { title: 'refused' }, { hooks: false });
    await repository.delete(String(quiet._id), { hooks: false });
    expect(journal.entries).toEqual([]);
  });
}
