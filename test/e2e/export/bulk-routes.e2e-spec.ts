import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import SwaggerParser from '@apidevtools/swagger-parser';
import { DocumentBuilder } from '@nestjs/swagger';
import { GeneratedResource } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { createTestApp, testAdapter, type TestApp } from '../../support/app.js';
import { observe } from '../../support/db-snapshot.js';
import { useEngine } from '../../support/engine.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';

/** Issue 27, item 3: `PATCH /<plural>?<conditions>` and `DELETE /<plural>?<conditions>`: bounded, never partial, a dry run, a report per document. */
export function bulkRoutesSpec(): void {
  const engine = useEngine();

  @GeneratedResource({ path: 'keeper', plural: 'keepers', routes: { deleteMany: true } })
  @Schema()
  class Keeper {
    @Prop({ required: true }) name!: string;
    @Prop() team?: string;
  }

  /** Bulk changes of at most 3 documents. */
  @GeneratedResource({
    path: 'chore',
    plural: 'chores',
    routes: { updateMany: true, deleteMany: true },
    hidden: ['internal'],
    search: { bulkMaxDocuments: 3 },
    references: { keeper: { filter: true } },
  })
  @Schema()
  class Chore {
    @Prop({ required: true }) title!: string;
    @Prop() batch?: string;
    @Prop({ enum: ['open', 'done'] }) status?: string;
    @Prop({ max: 10 }) points?: number;
    @Prop({ type: Types.ObjectId, ref: 'Keeper', onDelete: 'restrict' }) keeper?: Types.ObjectId;
    @Prop({ select: false }) secret?: string;
    @Prop() internal?: string;
  }

  /** Writes need If-Match: no bulk change. */
  @GeneratedResource({ path: 'deed', plural: 'deeds', routes: { updateMany: true, deleteMany: true }, requireIfMatch: true })
  @Schema()
  class Deed {
    @Prop() title?: string;
  }

  /** Not opted in. */
  @GeneratedResource({ path: 'shelf', plural: 'shelves' })
  @Schema()
  class Shelf {
    @Prop() name?: string;
  }

  /** Another write gets in between: the first write of a bulk change moves the last match out of the filter before its turn. */
  @GeneratedResource({ path: 'lap', plural: 'laps', routes: { updateMany: true } })
  @Schema()
  class Lap {
    @Prop() batch?: string;
    @Prop() n?: number;
  }
  const race: { first?: string; last?: Types.ObjectId } = {};
  const LapSchema = SchemaFactory.createForClass(Lap);
  LapSchema.pre('findOneAndUpdate', async function () {
    if (!race.first || String((this.getFilter() as { _id?: unknown })._id) !== race.first) return;
    race.first = undefined;
    await this.model.collection.updateOne({ _id: race.last }, { $set: { batch: 'moved' } });
  });

  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Keeper, Chore, Deed, Shelf, { resource: Lap, schema: LapSchema }] });
  });
  afterAll(() => t?.close());

  /** Stores chores of one batch, in `_id` order; answers their ids. */
  const chores = async (batch: string, values: ReadonlyArray<Record<string, unknown>>) =>
    (
      (await t.connection.model('Chore').create(values.map((value, index) => ({ title: `${batch}-${index}`, batch, status: 'open', ...value })))) as Array<{
        _id: Types.ObjectId;
      }>
    ).map(({ _id }) => String(_id));
  const stored = async (batch: string) => (await t.connection.model('Chore').find({ batch }).sort({ _id: 1 }).lean()) as Array<Record<string, unknown>>;

  it('is off until the resource turns it on: the path answers 405 for PATCH and DELETE, with its methods in Allow', async () => {
    for (const send of [() => t.http().patch('/shelves?name=a').send({ name: 'b' }), () => t.http().delete('/shelves?name=a')]) {
      const response = await send();
      expect([response.status, response.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    }
    expect((await t.http().patch('/keepers?name=a').send({ team: 'b' })).headers.allow).toBe('DELETE, GET, HEAD, POST');
  });

  it("is in the OpenAPI document: its conditions and dryRun as parameters (no paging), the report's schema, its errors; only where it is on", async () => {
    const document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('bulk').build());
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    const { patch, delete: remove } = document.paths['/chores'] as Record<string, any>;
    expect([patch.operationId, remove.operationId]).toEqual(['chore_updateMany', 'chore_deleteMany']);
    const names = (operation: { parameters: Array<{ name: string }> }) => operation.parameters.map(({ name }) => name).sort();
    expect(names(remove)).toEqual(['_id', 'batch', 'dryRun', 'keeper', 'points', 'status', 'title']);
    expect(names(patch)).toEqual(names(remove));
    expect(patch.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ChoreUpdateDto' });
    expect(patch.responses['200'].content['application/json'].schema.required).toEqual(['dryRun', 'matched', 'updated', 'skipped', 'refused', 'items']);
    expect(remove.responses['200'].content['application/json'].schema.required).toEqual(['dryRun', 'matched', 'deleted', 'skipped', 'refused', 'items']);
    expect(remove.responses['400'].description).toContain('MR_BULK_TOO_LARGE');
    expect(Object.keys((document.paths['/shelves'] as object) ?? {}).sort()).toEqual(['get', 'post']);
  });

  it('PATCH merges the body into every match, each by its own write (version key, validators), in _id order; other documents are untouched', async () => {
    const ids = await chores('merge', [{ points: 1 }, { points: 2 }, { status: 'done' }]);
    const response = await t.http().patch('/chores?batch=merge&status=open').send({ points: 7, status: 'done' }).expect(200);
    expect(response.body).toEqual({
      dryRun: false,
      matched: 2,
      updated: 2,
      skipped: 0,
      refused: 0,
      items: [
        { id: ids[0], result: 'updated' },
        { id: ids[1], result: 'updated' },
      ],
    });
    expect((await stored('merge')).map(({ title, points, status, __v }) => ({ title, points, status, __v }))).toEqual([
      { title: 'merge-0', points: 7, status: 'done', __v: 1 },
      { title: 'merge-1', points: 7, status: 'done', __v: 1 },
      { title: 'merge-2', points: undefined, status: 'done', __v: 0 },
    ]);
  });

  it(
    "DELETE deletes every match; one that an onDelete: restrict reference keeps is refused with the single delete's error, the others are " + 'deleted',
    async () => {
      const [kept, gone] = (await t.connection.model('Keeper').create([
        { name: 'Ann', team: 'blue' },
        { name: 'Bob', team: 'blue' },
      ])) as Array<{ _id: Types.ObjectId }>;
      await chores('restrict', [{ keeper: kept._id }]);
      const response = await t.http().delete('/keepers?team=blue').expect(200);
      expect(response.body).toEqual({
        dryRun: false,
        matched: 2,
        deleted: 1,
        skipped: 0,
        refused: 1,
        items: [
          {
            id: String(kept._id),
            result: 'refused',
            code: 'MR_REFERENCED',
            message: expect.stringContaining('Chore'),
            details: [{ path: 'Chore.keeper', message: '1 Chore document references it' }],
          },
          { id: String(gone._id), result: 'deleted' },
        ],
      });
      expect(await t.connection.model('Keeper').find({ team: 'blue' }).lean()).toEqual([expect.objectContaining({ name: 'Ann' })]);
    },
  );

  it('takes conditions across a reference declared filter: true (keeper.name=...), resolved as a search resolves them', async () => {
    const [cleo, dan] = (await t.connection.model('Keeper').create([{ name: 'Cleo' }, { name: 'Dan' }])) as Array<{ _id: Types.ObjectId }>;
    const ids = await chores('across', [{ keeper: cleo._id }, { keeper: dan._id }, { keeper: cleo._id }]);
    const response = await t.http().patch('/chores?batch=across&keeper.name=Cleo').send({ points: 9 }).expect(200);
    expect(response.body).toMatchObject({ matched: 2, updated: 2, items: [{ id: ids[0] }, { id: ids[2] }] });
    expect((await stored('across')).map(({ points }) => points)).toEqual([9, undefined, 9]);
  });

  it('dryRun=true counts and lists the matches and writes nothing, for PATCH and DELETE', async () => {
    const ids = await chores('dry', [{}, {}]);
    const expected = { dryRun: true, matched: 2, skipped: 0, refused: 0, items: ids.map((id) => ({ id, result: 'matched' })) };
    for (const [send, outcome] of [
      [() => t.http().patch('/chores?batch=dry&dryRun=true').send({ points: 3 }), 'updated'],
      [() => t.http().delete('/chores?dryRun=true&batch=dry'), 'deleted'],
    ] as const) {
      const { response, before, after } = await observe(t.connection, send);
      expect(response.body).toEqual({ ...expected, [outcome]: 0 });
      expect(after.text).toBe(before.text);
    }
  });

  it(
    'a filter that matches more than search.bulkMaxDocuments is refused whole with the count (400 MR_BULK_TOO_LARGE), nothing written, dry ' + 'run or not',
    async () => {
      await chores('broad', [{}, {}, {}, {}]);
      for (const send of [
        () => t.http().patch('/chores?batch=broad').send({ points: 3 }),
        () => t.http().delete('/chores?batch=broad'),
        () => t.http().delete('/chores?batch=broad&dryRun=true'),
      ]) {
        const response = await expectRefusedUnchanged(t.connection, send, {
          status: 400,
          code: 'MR_BULK_TOO_LARGE',
          details: [{ path: 'query', message: 'matches 4, at most 3' }],
        });
        expect(response.body.message).toMatch(
          /^The filter matches 4 Chore documents; a bulk change touches at most 3 \(search.bulkMaxDocuments\): nothing was written/,
        );
      }
    },
  );

  it('a document that another write moved out of the filter before its turn is skipped, not written', async () => {
    const docs = (await t.connection.model('Lap').create([1, 2, 3, 4, 5].map((n) => ({ batch: 'race', n })))) as Array<{ _id: Types.ObjectId }>;
    // The first write of the first four (written together) moves the fifth, written after them.
    Object.assign(race, { first: String(docs[0]._id), last: docs[4]._id });
    const response = await t.http().patch('/laps?batch=race').send({ n: 0 }).expect(200);
    expect(response.body).toMatchObject({ matched: 5, updated: 4, skipped: 1, refused: 0 });
    expect(response.body.items[4]).toEqual({ id: String(docs[4]._id), result: 'skipped' });
    expect(await t.connection.model('Lap').findById(docs[4]._id).lean()).toMatchObject({ batch: 'moved', n: 5 });
  });

  it('a resource whose writes need If-Match takes no bulk change: 428, nothing written', async () => {
    await t.connection.model('Deed').create({ title: 'x' });
    await expectRefusedUnchanged(t.connection, () => t.http().delete('/deeds?title=x'), { status: 428, code: 'MR_PRECONDITION_REQUIRED' });
    await expectRefusedUnchanged(t.connection, () => t.http().patch('/deeds?title=x').send({ title: 'y' }), { status: 428, code: 'MR_PRECONDITION_REQUIRED' });
  });

  describe('hostile requests: refused in the one error shape, nothing written', () => {
    beforeAll(() => chores('hostile', [{ secret: 's', internal: 'i' }]));

    it.each([
      ['no condition', '/chores', 400, 'MR_INVALID_QUERY', 'query'],
      ['dryRun alone', '/chores?dryRun=true', 400, 'MR_INVALID_QUERY', 'query'],
      ['a bad dryRun', '/chores?batch=hostile&dryRun=yes', 400, 'MR_INVALID_QUERY', 'dryRun'],
      ['limit', '/chores?batch=hostile&limit=1', 400, 'MR_INVALID_QUERY', 'limit'],
      ['skip', '/chores?batch=hostile&skip=1', 400, 'MR_INVALID_QUERY', 'skip'],
      ['sort', '/chores?batch=hostile&sort=title', 400, 'MR_INVALID_QUERY', 'sort'],
      ['select', '/chores?batch=hostile&select=title', 400, 'MR_INVALID_QUERY', 'select'],
      ['expand', '/chores?batch=hostile&expand=keeper', 400, 'MR_INVALID_QUERY', 'expand'],
      ['after', '/chores?batch=hostile&after=x', 400, 'MR_INVALID_QUERY', 'after'],
      ['a hidden field (hidden)', '/chores?internal=i', 400, 'MR_INVALID_QUERY', 'query.internal'],
      ['a hidden field (select: false), by regex', '/chores?secret[regex]=^s', 400, 'MR_INVALID_QUERY', 'query.secret'],
      ['an unknown field', '/chores?nope=1', 400, 'MR_INVALID_QUERY', 'query.nope'],
      ['an operator the query string refuses', '/chores?batch[where]=1', 400, 'MR_INVALID_QUERY', 'query.batch.$where'],
      ['__proto__', '/chores?__proto__[batch]=hostile', 400, 'MR_INVALID_QUERY', 'query.__proto__'],
      ['a condition given twice', '/chores?batch=hostile&batch[eq]=x', 400, 'MR_INVALID_QUERY', 'query.batch'],
      ['a value its field cannot hold', '/chores?points=many', 400, 'MR_INVALID_VALUE', 'query.points'],
      ['a value its enum does not have', '/chores?status=lost', 400, 'MR_INVALID_VALUE', 'query.status'],
    ])('conditions: %s', async (_label, path, status, code, at) => {
      for (const send of [() => t.http().delete(path), () => t.http().patch(path).send({ points: 1 })]) {
        const response = await expectRefusedUnchanged(t.connection, send, { status, code });
        expect(response.body.details[0].path).toBe(at);
      }
    });

    it.each([
      ['a hidden field', { internal: 'x' }, 400, 'MR_INVALID_BODY'],
      ['a select: false field', { secret: 'x' }, 400, 'MR_INVALID_BODY'],
      ['_id', { _id: new Types.ObjectId().toString() }, 400, 'MR_INVALID_BODY'],
      ['the version key', { __v: 9 }, 400, 'MR_INVALID_BODY'],
      ['an unknown field', { nope: 1 }, 400, 'MR_INVALID_BODY'],
      ['an operator key', { $set: { points: 1 } }, 400, 'MR_INVALID_BODY'],
      ['a value of the wrong type', { points: 'many' }, 400, 'MR_VALIDATION_FAILED'],
      ['a value past its validator', { points: 11 }, 400, 'MR_VALIDATION_FAILED'],
      ['a reference to no document', { keeper: new Types.ObjectId().toString() }, 400, 'MR_REFERENCE_NOT_FOUND'],
      ['no change', {}, 400, 'MR_INVALID_BODY'],
      ['an array', [{ points: 1 }], 400, 'MR_INVALID_BODY'],
    ])('body of PATCH: %s', async (_label, body, status, code) => {
      await expectRefusedUnchanged(
        t.connection,
        () =>
          t
            .http()
            .patch('/chores?batch=hostile')
            .send(body as object),
        { status, code },
      );
    });

    it(
      'DELETE reads no body: a filter sent as a search body is no condition (400, nothing deleted); an empty JSON body is no 5xx (Fastify refuses it on ' +
        'every route)',
      async () => {
        await expectRefusedUnchanged(
          t.connection,
          () =>
            t
              .http()
              .delete('/chores')
              .send({ query: { batch: 'hostile' } }),
          { status: 400, code: 'MR_INVALID_QUERY', details: [expect.objectContaining({ path: 'query' })] },
        );
        const { response, before, after } = await observe(t.connection, () =>
          t.http().delete('/chores?batch=hostile&dryRun=true').set('Content-Type', 'application/json').send(''),
        );
        // Fastify's JSON parser refuses an empty body with a JSON Content-Type before any route runs, the single DELETE's too.
        expect([response.status, response.body.code, after.text === before.text]).toEqual(
          testAdapter() === 'fastify' ? [400, 'MR_INVALID_BODY', true] : [200, undefined, true],
        );
        if (testAdapter() === 'fastify')
          expect(response.body.message).toBe(
            'The request says its body is JSON (Content-Type: application/json) but has none: send a JSON object, or no Content-Type',
          );
      },
    );

    it('body of PATCH: not JSON (415), malformed JSON (400), truncated JSON (400)', async () => {
      await expectRefusedUnchanged(t.connection, () => t.http().patch('/chores?batch=hostile').set('Content-Type', 'text/plain').send('points=1'), {
        status: 415,
        code: 'MR_UNSUPPORTED_MEDIA_TYPE',
      });
      for (const text of ['{"points": 1,}', '{"points": ']) {
        await expectRefusedUnchanged(t.connection, () => t.http().patch('/chores?batch=hostile').set('Content-Type', 'application/json').send(text), {
          status: 400,
          code: 'MR_INVALID_JSON',
        });
      }
    });
  });
}
