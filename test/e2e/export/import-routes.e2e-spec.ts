import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import SwaggerParser from '@apidevtools/swagger-parser';
import { DocumentBuilder } from '@nestjs/swagger';
import { Controller, ForbiddenException } from '@nestjs/common';
import { GeneratedController, GeneratedResource, type ImportBatch, type ImportReport } from '../../../src/index.js';
import { createModelRoutesDocument } from '../../../src/swagger/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { observe } from '../../support/db-snapshot.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { streamUpload } from '../../support/raw-upload.js';
import { xlsxOf } from '../../support/xlsx.js';
import { ADMISSION } from '../../../src/constants.js';
import type { Admission } from '../../../src/concurrency/admission.js';
import { asBytes } from '../../support/binary-body.js';

/** Issue 27, item 2: `POST /<plural>/import` of CSV, NDJSON and a JSON array, every row checked as a create (or an update) is. */
export function importRoutesSpec(): void {
  const engine = useEngine();

  @GeneratedResource({ path: 'supplier', plural: 'suppliers' })
  @Schema()
  class Supplier {
    @Prop({ required: true }) name!: string;
  }

  @GeneratedResource({ path: 'item', plural: 'items', routes: { import: true, export: true }, hidden: ['internal'] })
  @Schema({ timestamps: true })
  class Item {
    @Prop({ required: true }) code!: string;
    @Prop() note?: string;
    @Prop() qty?: number;
    @Prop() paid?: boolean;
    @Prop() when?: Date;
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: { city?: string; zip?: string };
    @Prop([String]) tags?: string[];
    @Prop({ type: Types.ObjectId, ref: 'Supplier' }) supplier?: Types.ObjectId;
    @Prop({ select: false }) secret?: string;
    @Prop() internal?: string;
  }

  /** The same fields as Item, another collection: where an exported file is imported afresh. */
  @GeneratedResource({ path: 'item-copy', plural: 'item-copies', routes: { import: true } })
  @Schema({ timestamps: true })
  class ItemCopy {
    @Prop({ required: true }) code!: string;
    @Prop() note?: string;
    @Prop() qty?: number;
    @Prop() paid?: boolean;
    @Prop() when?: Date;
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: { city?: string; zip?: string };
    @Prop([String]) tags?: string[];
    @Prop({ type: Types.ObjectId, ref: 'Supplier' }) supplier?: Types.ObjectId;
  }

  /** Not opted in: no import route. */
  @GeneratedResource({ path: 'crate', plural: 'crates' })
  @Schema()
  class Crate {
    @Prop() name?: string;
  }

  /** Imports of at most 10 rows, 200 bytes, rows of 80 bytes. */
  @GeneratedResource({ path: 'bin', plural: 'bins', routes: { import: true }, search: { importMaxRows: 10, importMaxBytes: 200, importMaxRowBytes: 80 } })
  @Schema()
  class Bin {
    @Prop() label?: string;
  }

  /** Imports of at most 2 rows, files of the default size: an XLSX file's row bound. */
  @GeneratedResource({ path: 'tray', plural: 'trays', routes: { import: true }, search: { importMaxRows: 2 } })
  @Schema()
  class Tray {
    @Prop() label?: string;
  }

  /** Identified by a unique `sku`: an upsert's key. */
  @GeneratedResource({ path: 'product', plural: 'products', id: 'sku', routes: { import: true } })
  @Schema()
  class Product {
    @Prop({ required: true, unique: true }) sku!: string;
    @Prop() price?: number;
  }

  /** Writes need If-Match. */
  @GeneratedResource({ path: 'contract', plural: 'contracts', routes: { import: true }, requireIfMatch: true })
  @Schema()
  class Contract {
    @Prop() title?: string;
  }

  /** `author` is the server's: set by the controller's override of `import`, never by the file. */
  @GeneratedResource({ path: 'memo', plural: 'memos', routes: { import: true }, readonly: ['author'] })
  @Schema()
  class Memo {
    @Prop() text?: string;
    @Prop() author?: string;
  }

  @Controller()
  class MemoController extends GeneratedController(Memo) {
    override async import(batch: ImportBatch): Promise<ImportReport> {
      if (batch.rows.length > 2) throw new ForbiddenException('Two memos at a time');
      return batch.run({ serverFields: { author: 'importer' } });
    }
  }

  /** Imports whose client may fall silent for 200 ms at most. */
  @GeneratedResource({ path: 'pail', plural: 'pails', routes: { import: true }, search: { importBodyTimeout: 200 } })
  @Schema()
  class Pail {
    @Prop() label?: string;
  }

  /** Imports that wait for their client as long as the default lets them (30 s). */
  @GeneratedResource({ path: 'tub', plural: 'tubs', routes: { import: true } })
  @Schema()
  class Tub {
    @Prop() label?: string;
  }

  /** A save hook that fails on one value: a failure half-way through an import, as a database that goes away would be. */
  @GeneratedResource({ path: 'ledger', plural: 'ledgers', routes: { import: true } })
  @Schema()
  class Ledger {
    @Prop() n?: number;
  }
  const LedgerSchema = SchemaFactory.createForClass(Ledger);
  LedgerSchema.pre('save', function () {
    if ((this as { n?: number }).n === 6) throw new Error('the disk is full');
  });

  let t: TestApp;
  let supplier: string;

  beforeAll(async () => {
    t = await createTestApp(engine, {
      controllers: [MemoController],
      resources: [Supplier, Item, ItemCopy, Crate, Bin, Tray, Product, Pail, Tub, Contract, Memo, { resource: Ledger, schema: LedgerSchema }],
      admission: { imports: 1 },
    });
    supplier = (await t.connection.model('Supplier').create({ name: 'Acme' }))._id.toString();
  });
  afterAll(() => t?.close());

  const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
  const xlsx = (path: string, file: Buffer, type = XLSX) => t.http().post(path).set('Content-Type', type).send(file);
  const csv = (path: string, text: string) => t.http().post(path).set('Content-Type', 'text/csv').send(text);
  const ndjson = (path: string, rows: readonly unknown[], type = 'application/x-ndjson') =>
    t
      .http()
      .post(path)
      .set('Content-Type', type)
      .send(rows.map((row) => JSON.stringify(row)).join('\n'));
  const items = async (filter: Record<string, unknown> = {}) =>
    (await t.connection.model('Item').find(filter).sort({ code: 1 }).lean()) as Array<Record<string, unknown>>;
  const report = (fields: Record<string, unknown>) => ({
    mode: 'create',
    dryRun: false,
    created: 0,
    updated: 0,
    unchanged: 0,
    refused: 0,
    ignored: [],
    errors: [],
    ...fields,
  });

  it('is off until the resource turns it on: 404', async () => {
    // JSON: Fastify answers a body of a type it has no parser for (text/csv) with a 415 before it finds no route.
    expectNoRoute(
      await t
        .http()
        .post('/crates/import')
        .send([{ name: 'x' }]),
    );
  });

  it("is in the OpenAPI document: its media types, parameters and the report's schema; only where it is on", async () => {
    const document = createModelRoutesDocument(t.app, new DocumentBuilder().setTitle('import').build());
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
    const operation = (document.paths['/items/import'] as Record<string, any>).post;
    expect(operation.operationId).toBe('item_import');
    expect(Object.keys(operation.requestBody.content).sort()).toEqual([
      'application/json',
      'application/jsonl',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/x-ndjson',
      'text/csv',
    ]);
    expect(operation.parameters.find((parameter: { name: string }) => parameter.name === 'format').schema.enum).toEqual(['csv', 'ndjson', 'json', 'xlsx']);
    expect(operation.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual(['dryRun', 'format', 'mode']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '408', '413', '415']));
    expect(operation.responses['200'].content['application/json'].schema.required).toEqual(expect.arrayContaining(['created', 'updated', 'refused', 'errors']));
    expect(document.paths['/crates/import']).toBeUndefined();
  });

  it("creates from CSV: dotted columns nested, cells cast as a JSON body's strings are, an empty cell an absent field, JSON cells for arrays", async () => {
    const file =
      'code,qty,paid,when,address.city,address.zip,tags,supplier,note\n' +
      `C1,12,true,2026-01-02T03:04:05.000Z,Lyon,,"[""a"",""b""]",${supplier},'=1+1\n` +
      'C2,,false,,,,,,\n';
    const response = await csv('/items/import', file).expect(200);
    expect(response.body).toEqual(report({ rows: 2, created: 2 }));
    const [c1, c2] = await items({ code: { $in: ['C1', 'C2'] } });
    expect(c1).toMatchObject({
      code: 'C1',
      qty: 12,
      paid: true,
      when: new Date('2026-01-02T03:04:05.000Z'),
      address: { city: 'Lyon' },
      tags: ['a', 'b'],
      supplier: new Types.ObjectId(supplier),
      note: '=1+1',
    });
    expect((c1.address as Record<string, unknown>).zip).toBeUndefined();
    expect(c2).toMatchObject({ code: 'C2', paid: false });
    expect(c2).not.toHaveProperty('qty');
    expect(c2).not.toHaveProperty('note');
  });

  it('creates from NDJSON (application/x-ndjson and application/jsonl) and from a JSON array', async () => {
    expect(
      (
        await ndjson('/items/import', [
          { code: 'N1', qty: 1 },
          { code: 'N2', tags: ['x'] },
        ]).expect(200)
      ).body,
    ).toEqual(report({ rows: 2, created: 2 }));
    expect((await ndjson('/items/import', [{ code: 'N3' }], 'application/jsonl').expect(200)).body).toEqual(report({ rows: 1, created: 1 }));
    expect(
      (
        await t
          .http()
          .post('/items/import')
          .send([{ code: 'J1', address: { city: 'Nice' } }, { code: 'J2' }])
          .expect(200)
      ).body,
    ).toEqual(report({ rows: 2, created: 2 }));
    expect((await items({ code: { $in: ['N1', 'N2', 'N3', 'J1', 'J2'] } })).map(({ code, qty, tags, address }) => ({ code, qty, tags, address }))).toEqual([
      { code: 'J1', qty: undefined, tags: [], address: { city: 'Nice' } },
      { code: 'J2', qty: undefined, tags: [], address: undefined },
      { code: 'N1', qty: 1, tags: [], address: undefined },
      { code: 'N2', qty: undefined, tags: ['x'], address: undefined },
      { code: 'N3', qty: undefined, tags: [], address: undefined },
    ]);
  });

  it(
    'a round trip: an exported CSV imported back with mode=upsert changes nothing; without its _id column, into a fresh resource, it creates the same ' +
      'documents',
    async () => {
      await t.connection.model('Item').create({
        code: 'R1',
        note: '@SUM(1)',
        qty: -2.5,
        paid: true,
        when: new Date('2026-05-06T07:08:09.010Z'),
        address: { city: 'Pau', zip: '64000' },
        tags: ['t'],
        supplier,
        secret: 's',
        internal: 'i',
      });
      const exported = (await t.http().get('/items/export?sort=code').expect(200)).text;
      const count = parse(exported, { bom: true, columns: true }).length as number;
      const { response, before, after } = await observe(t.connection, () => csv('/items/import?mode=upsert', exported));
      expect(response.status).toBe(200);
      expect(response.body).toEqual(report({ mode: 'upsert', rows: count, unchanged: count, ignored: ['createdAt', 'updatedAt'] }));
      expect(after.text).toBe(before.text);

      const records = parse(exported, { bom: true, columns: true }) as Array<Record<string, string>>;
      const withoutId = stringify(
        records.map(({ _id, ...rest }) => rest),
        { header: true },
      );
      expect((await csv('/item-copies/import', withoutId).expect(200)).body).toEqual(
        report({ rows: count, created: count, ignored: ['createdAt', 'updatedAt'] }),
      );
      const shape = (docs: Array<Record<string, unknown>>) => docs.map(({ _id, __v, createdAt, updatedAt, secret, internal, ...rest }) => rest);
      const copies = (await t.connection.model('ItemCopy').find().sort({ code: 1 }).lean()) as Array<Record<string, unknown>>;
      expect(shape(copies)).toEqual(shape(await items()));
    },
  );

  it(
    "XLSX: the first sheet's typed cells (a number, a boolean, a date, a dotted column, a JSON cell, a bad value) give the report the same " +
      'rows in CSV give',
    async () => {
      const header = ['code', 'qty', 'paid', 'when', 'address.city', 'tags', 'supplier'];
      const rows = [
        ['X1', 12.5, true, new Date('2026-03-04T05:06:07.000Z'), 'Lyon', '["a","b"]', supplier],
        ['X2', 'many', false, null, null, null, null],
      ];
      const book = await xlsxOf([
        [header, ...rows],
        [['ignored'], ['sheet']],
      ]);
      const text = stringify([header, ...rows.map((row) => row.map((cell) => (cell instanceof Date ? cell.toISOString() : cell)))], {
        cast: { boolean: String },
      });
      const fromCsv = (await csv('/items/import?dryRun=true', text).expect(200)).body;
      const fromXlsx = (await xlsx('/items/import?dryRun=true', book).expect(200)).body;
      expect(fromXlsx).toEqual(fromCsv);
      expect(fromXlsx).toEqual(
        report({
          dryRun: true,
          rows: 2,
          created: 1,
          refused: 1,
          errors: [{ row: 2, code: 'MR_VALIDATION_FAILED', message: expect.any(String), details: [expect.objectContaining({ path: 'qty' })] }],
        }),
      );
      // ?format=xlsx whatever the Content-Type; written this time.
      expect((await xlsx('/items/import?format=xlsx', book, 'application/octet-stream').expect(200)).body).toEqual({ ...fromCsv, dryRun: false });
      expect(await items({ code: /^X/ })).toEqual([
        expect.objectContaining({
          code: 'X1',
          qty: 12.5,
          paid: true,
          when: new Date('2026-03-04T05:06:07.000Z'),
          address: { city: 'Lyon' },
          tags: ['a', 'b'],
          supplier: new Types.ObjectId(supplier),
        }),
      ]);
    },
  );

  it('an XLSX round trip: an exported XLSX imported back with mode=upsert reports every row unchanged and changes no byte', async () => {
    await t.connection.model('Item').create({
      code: 'RX1',
      note: '=HYPERLINK("x")',
      qty: 0.1,
      paid: false,
      when: new Date('2026-07-08T09:10:11.012Z'),
      address: { city: 'Dax' },
      tags: ['u', 'v'],
      supplier,
    });
    const exported = await asBytes(t.http().get('/items/export?format=xlsx')).expect(200);
    const count = await t.connection.model('Item').countDocuments();
    const { response, before, after } = await observe(t.connection, () => xlsx('/items/import?mode=upsert', exported.body as Buffer));
    expect(response.status).toBe(200);
    expect(response.body).toEqual(report({ mode: 'upsert', rows: count, unchanged: count, ignored: ['createdAt', 'updatedAt'] }));
    expect(after.text).toBe(before.text);
  });

  it('refuses an XLSX file whole, nothing written: truncated, random bytes, a formula cell (400 MR_INVALID_IMPORT), past the row bound (413)', async () => {
    const file = await xlsxOf([[['label'], ['a'], ['b']]]);
    const invalid = (details?: unknown) => ({ status: 400, code: 'MR_INVALID_IMPORT', ...(details !== undefined && { details }) });
    await expectRefusedUnchanged(t.connection, () => xlsx('/trays/import', file.subarray(0, file.length - 100)), invalid());
    await expectRefusedUnchanged(
      t.connection,
      () => xlsx('/trays/import', Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919) % 251))),
      invalid(),
    );
    const formula = await xlsxOf([[['label'], ['a'], [{ formula: 'A2&"!"', result: 'a!' }]]]);
    const refused = await expectRefusedUnchanged(
      t.connection,
      () => xlsx('/trays/import', formula),
      invalid([{ path: '2', message: expect.stringContaining('formula') }]),
    );
    expect(refused.body.message).toMatch(/^Row 2 of the file cannot be read: the cell A3 holds a formula/);
    const three = await xlsxOf([[['label'], ['a'], ['b'], ['c']]]);
    await expectRefusedUnchanged(t.connection, () => xlsx('/trays/import', three), { status: 413, code: 'MR_IMPORT_TOO_LARGE' });
    expect((await xlsx('/trays/import', file).expect(200)).body).toEqual(report({ rows: 2, created: 2 }));
  });

  it(
    "mode=upsert updates the document a row's _id names, creates a row without one, and refuses an _id that names no document (never a " + 'client-chosen _id)',
    async () => {
      const [existing] = await t.connection.model('Item').create([{ code: 'U1', qty: 1, note: 'kept' }]);
      const unknown = new Types.ObjectId().toString();
      const response = await ndjson('/items/import?mode=upsert', [
        { _id: existing._id.toString(), qty: 2 },
        { code: 'U2' },
        { _id: unknown, code: 'U3' },
      ]).expect(200);
      expect(response.body).toEqual(
        report({
          mode: 'upsert',
          rows: 3,
          created: 1,
          updated: 1,
          refused: 1,
          errors: [{ row: 3, code: 'MR_NOT_FOUND', message: `Item '${unknown}' not found` }],
        }),
      );
      expect(await items({ code: { $in: ['U1', 'U2', 'U3'] } })).toEqual([
        expect.objectContaining({ code: 'U1', qty: 2, note: 'kept' }),
        expect.objectContaining({ code: 'U2' }),
      ]);
    },
  );

  it('mode=upsert keyed by another id field (a unique sku): a known sku is updated, a new one created with it', async () => {
    await t.connection.model('Product').create({ sku: 'S-1', price: 1 });
    const response = await csv('/products/import?mode=upsert', 'sku,price\nS-1,2\nS-2,3\n').expect(200);
    expect(response.body).toEqual(report({ mode: 'upsert', rows: 2, created: 1, updated: 1 }));
    expect(
      ((await t.connection.model('Product').find().sort({ sku: 1 }).lean()) as Array<Record<string, unknown>>).map(({ sku, price }) => ({ sku, price })),
    ).toEqual([
      { sku: 'S-1', price: 2 },
      { sku: 'S-2', price: 3 },
    ]);
    // In create mode a known sku is the duplicate a create answers, for that row.
    const again = await csv('/products/import', 'sku,price\nS-1,9\n').expect(200);
    expect(again.body.errors).toEqual([expect.objectContaining({ row: 1, code: 'MR_DUPLICATE_KEY' })]);
  });

  it(
    'on a resource whose writes need If-Match, an upsert row that would change a document is refused (428 MR_PRECONDITION_REQUIRED, as a PATCH without ' +
      'it); creates and unchanged rows go through',
    async () => {
      const [contract] = await t.connection.model('Contract').create([{ title: 'a' }]);
      const id = contract._id.toString();
      const response = await ndjson('/contracts/import?mode=upsert', [{ _id: id, title: 'b' }, { _id: id, title: 'a' }, { title: 'c' }]).expect(200);
      expect(response.body).toEqual(
        report({
          mode: 'upsert',
          rows: 3,
          created: 1,
          unchanged: 1,
          refused: 1,
          errors: [{ row: 1, code: 'MR_PRECONDITION_REQUIRED', message: expect.any(String) }],
        }),
      );
      expect(((await t.connection.model('Contract').findById(id).lean()) as Record<string, unknown>).title).toBe('a');
    },
  );

  it('an override of import(batch) sets server-owned fields on every row after its check, or refuses the import', async () => {
    const response = await csv('/memos/import', 'text,author\nhello,\nbye,mallory\n').expect(200);
    // The file's author column is a readonly field's: ignored, never written.
    expect(response.body).toEqual(report({ rows: 2, created: 2, ignored: ['author'] }));
    expect(
      ((await t.connection.model('Memo').find().sort({ text: -1 }).lean()) as Array<Record<string, unknown>>).map(({ text, author }) => ({ text, author })),
    ).toEqual([
      { text: 'hello', author: 'importer' },
      { text: 'bye', author: 'importer' },
    ]);
    await expectRefusedUnchanged(t.connection, () => ndjson('/memos/import', [{ text: 'a' }, { text: 'b' }, { text: 'c' }]), {
      status: 403,
      code: 'MR_FORBIDDEN',
    });
  });

  it('dryRun writes nothing and answers the report the import then gives', async () => {
    const [existing] = await t.connection.model('Item').create([{ code: 'D1', qty: 1 }]);
    const rows = [
      { _id: existing._id.toString(), qty: 5 },
      { code: 'D2', supplier },
      { code: 'D3', qty: 'many' },
      { code: 'D4', supplier: new Types.ObjectId().toString() },
      { qty: 3 },
    ];
    const { response, before, after } = await observe(t.connection, () => ndjson('/items/import?mode=upsert&dryRun=true', rows));
    expect(response.status).toBe(200);
    expect(after.text).toBe(before.text);
    const real = await ndjson('/items/import?mode=upsert', rows).expect(200);
    expect(response.body).toEqual({ ...real.body, dryRun: true });
    expect(real.body).toMatchObject({ rows: 5, created: 1, updated: 1, refused: 3 });
    expect(real.body.errors.map(({ row, code }: { row: number; code: string }) => [row, code])).toEqual([
      [3, 'MR_VALIDATION_FAILED'],
      [4, 'MR_REFERENCE_NOT_FOUND'],
      [5, 'MR_VALIDATION_FAILED'],
    ]);
  });

  it('refuses a row as a single create refuses its body, with its number and the same code, message and details; the other rows are written', async () => {
    const tampered: Array<[string, string]> = [
      ['wrong type', '{"code":"T1","qty":"many"}'],
      ['unknown field', '{"code":"T2","colour":"red"}'],
      ['hidden field', '{"code":"T3","secret":"x"}'],
      ['hidden by the resource', '{"code":"T4","internal":"x"}'],
      ['operator key', '{"code":"T5","$set":{"qty":1}}'],
      ['dotted key', '{"code":"T6","address.city":"x"}'],
      ['a reference to no document', `{"code":"T8","supplier":"${new Types.ObjectId().toString()}"}`],
      ['server-owned field', '{"code":"T9","_id":"65f000000000000000000001"}'],
      ['not an object', '[1,2]'],
    ];
    const single: unknown[] = [];
    for (const [, body] of tampered) {
      const refused = await expectRefusedUnchanged(t.connection, () => t.http().post('/item').set('Content-Type', 'application/json').send(body), {
        status: 400,
        code: expect.any(String) as never,
      });
      single.push(refused.body);
    }
    const file = ['{"code":"OK1"}', ...tampered.map(([, body]) => body)].join('\n');
    const response = await t.http().post('/items/import').set('Content-Type', 'application/x-ndjson').send(file).expect(200);
    expect(response.body).toMatchObject({ rows: tampered.length + 1, created: 1, refused: tampered.length });
    expect(response.body.errors).toEqual(
      single.map((body, index) => {
        const { code, message, details } = body as { code: string; message: string; details?: unknown };
        return { row: index + 2, code, message, ...(details !== undefined && { details }) };
      }),
    );
    expect((await items({ code: /^T|^OK/ })).map((doc) => doc.code)).toEqual(['OK1']);
  });

  it("refuses a row with a __proto__ key as the body check does (Fastify's JSON parser refuses such a body before the check: MR_INVALID_JSON)", async () => {
    const response = await t
      .http()
      .post('/items/import')
      .set('Content-Type', 'application/x-ndjson')
      .send('{"code":"P1","__proto__":{"qty":1}}\n{"code":"P2","address":{"__proto__":{"x":1}}}')
      .expect(200);
    expect(response.body).toMatchObject({ rows: 2, created: 0, refused: 2 });
    expect(response.body.errors).toEqual([
      {
        row: 1,
        code: 'MR_INVALID_BODY',
        message: "Key '__proto__' is not allowed",
        details: [{ path: '__proto__', message: "Key '__proto__' is not allowed" }],
      },
      { row: 2, code: 'MR_INVALID_BODY', message: expect.any(String), details: [{ path: 'address.__proto__', message: expect.any(String) }] },
    ]);
    expect(await items({ code: /^P/ })).toEqual([]);
    const csvRefused = await csv('/items/import', 'code,__proto__.qty,constructor.prototype.x\nP3,1,2\n').expect(200);
    expect(csvRefused.body).toMatchObject({ rows: 1, refused: 1, errors: [{ row: 1, code: 'MR_INVALID_BODY' }] });
    expect(({} as Record<string, unknown>).qty).toBeUndefined();
  });

  it(
    'a CSV file cannot write hidden or server-owned fields: timestamps and the version key are ignored (and reported), a hidden column ' + 'refuses its row',
    async () => {
      const file = 'code,createdAt,__v,secret\nH1,2000-01-01T00:00:00.000Z,7,\nH2,,,leak\n';
      const response = await csv('/items/import', file).expect(200);
      expect(response.body).toMatchObject({ rows: 2, created: 1, refused: 1, ignored: ['createdAt', '__v'] });
      expect(response.body.errors).toEqual([
        { row: 2, code: 'MR_INVALID_BODY', message: expect.any(String), details: [{ path: 'secret', message: expect.any(String) }] },
      ]);
      const [h1] = (await t.connection
        .model('Item')
        .find({ code: { $in: ['H1', 'H2'] } })
        .select('+secret')
        .lean()) as Array<Record<string, unknown>>;
      expect(h1.code).toBe('H1');
      expect(h1.__v).toBe(0);
      expect((h1.createdAt as Date).getFullYear()).toBeGreaterThan(2000);
      expect(h1.secret).toBeUndefined();
    },
  );

  it('refuses a file that cannot be read, naming its row, and writes nothing of it', async () => {
    await expectRefusedUnchanged(
      t.connection,
      () => t.http().post('/items/import').set('Content-Type', 'application/x-ndjson').send('{"code":"M1"}\n{"code":"M2"}\n{"code":"M3"'),
      {
        status: 400,
        code: 'MR_INVALID_IMPORT',
        details: [{ path: '3', message: expect.any(String) }],
      },
    );
    await expectRefusedUnchanged(t.connection, () => csv('/items/import', 'code,note\nM1,fine\nM2,"unbalanced\nM3,x\n'), {
      status: 400,
      code: 'MR_INVALID_IMPORT',
      details: [{ path: '2', message: expect.any(String) }],
    });
    await expectRefusedUnchanged(t.connection, () => csv('/items/import', 'code,note\nM1,a,b\n'), {
      status: 400,
      code: 'MR_INVALID_IMPORT',
      details: [{ path: '1', message: expect.any(String) }],
    });
    await expectRefusedUnchanged(t.connection, () => csv('/items/import', 'code,code\nM1,M2\n'), {
      status: 400,
      code: 'MR_INVALID_IMPORT',
      details: [{ path: '0', message: expect.any(String) }],
    });
    await expectRefusedUnchanged(t.connection, () => t.http().post('/items/import').send({ code: 'M1' }), { status: 400, code: 'MR_INVALID_IMPORT' });
    await expectRefusedUnchanged(t.connection, () => t.http().post('/items/import').set('Content-Type', 'application/xml').send('<code/>'), {
      status: 415,
      code: 'MR_UNSUPPORTED_MEDIA_TYPE',
    });
    await expectRefusedUnchanged(
      t.connection,
      () =>
        t
          .http()
          .post('/items/import?mode=replace')
          .send([{ code: 'M1' }]),
      { status: 400, code: 'MR_INVALID_QUERY' },
    );
    await expectRefusedUnchanged(
      t.connection,
      () =>
        t
          .http()
          .post('/items/import?limit=1')
          .send([{ code: 'M1' }]),
      { status: 400, code: 'MR_INVALID_QUERY' },
    );
  });

  it("refuses a file past its bounds (rows, bytes, one row's bytes) whole, 413 MR_IMPORT_TOO_LARGE, nothing written", async () => {
    const tooLarge = (details?: unknown) => ({ status: 413, code: 'MR_IMPORT_TOO_LARGE', ...(details !== undefined && { details }) });
    const eleven = Array.from({ length: 11 }, (_, index) => ({ label: String(index) }));
    await expectRefusedUnchanged(t.connection, () => csv('/bins/import', `label\n${eleven.map(({ label }) => label).join('\n')}\n`), tooLarge());
    await expectRefusedUnchanged(t.connection, () => ndjson('/bins/import', eleven), tooLarge());
    await expectRefusedUnchanged(t.connection, () => t.http().post('/bins/import').send(eleven), tooLarge());
    const long = 'x'.repeat(100);
    await expectRefusedUnchanged(t.connection, () => csv('/bins/import', `label\na\n${long}\n`), tooLarge([{ path: '2', message: expect.any(String) }]));
    await expectRefusedUnchanged(
      t.connection,
      () => ndjson('/bins/import', [{ label: 'a' }, { label: long }]),
      tooLarge([{ path: '2', message: expect.any(String) }]),
    );
    await expectRefusedUnchanged(
      t.connection,
      () =>
        t
          .http()
          .post('/bins/import')
          .send([{ label: long }]),
      tooLarge([{ path: '1', message: expect.any(String) }]),
    );
    // Four rows of 60 bytes: within the row bound and the row count, past the bytes.
    const rows = Array.from({ length: 4 }, () => 'y'.repeat(60)).join('\n');
    await expectRefusedUnchanged(t.connection, () => csv('/bins/import', `label\n${rows}\n`), tooLarge());
    // Within every bound: written.
    expect((await csv('/bins/import', 'label\na\nb\nc\n').expect(200)).body).toEqual(report({ rows: 3, created: 3 }));
  });

  it('counts the bytes of a body sent without Content-Length (chunked) as they arrive: past importMaxBytes, a 413, nothing written', async () => {
    const head = Buffer.from(`label\n${Array.from({ length: 3 }, () => 'z'.repeat(70)).join('\n')}\n`);
    const { response, before, after } = await observe(t.connection, () =>
      streamUpload(t.app, '/bins/import', { method: 'POST', head, total: head.length, headers: { 'Content-Type': 'text/csv' } }),
    );
    expect({ status: response.status, code: response.body?.code }).toEqual({ status: 413, code: 'MR_IMPORT_TOO_LARGE' });
    expect(after.text).toBe(before.text);
  });

  it('answers a 413 to a large body that is still arriving (the answer reaches the client, the connection is closed), nothing written', async () => {
    const head = Buffer.from('label\na\nb\n');
    const total = 4 * 1024 * 1024;
    const { response, before, after } = await observe(t.connection, () =>
      streamUpload(t.app, '/bins/import', { method: 'POST', head, total, headers: { 'Content-Type': 'text/csv' } }),
    );
    expect({ status: response.status, code: response.body?.code }).toEqual({ status: 413, code: 'MR_IMPORT_TOO_LARGE' });
    expect(after.text).toBe(before.text);
  });

  it('a failure half-way (not a refusal of its row) ends the import with that error; the rows written before it stay', async () => {
    const rows = Array.from({ length: 10 }, (_, index) => ({ n: index + 1 }));
    expectError(await ndjson('/ledgers/import', rows), 500, 'MR_INTERNAL');
    // Rows go four at a time: the first four, and those of the failing row's four but itself, were written; none after.
    expect(((await t.connection.model('Ledger').find().sort({ n: 1 }).lean()) as Array<Record<string, unknown>>).map(({ n }) => n)).toEqual([
      1, 2, 3, 4, 5, 7, 8,
    ]);
  });

  it('a client that falls silent mid-file for longer than importBodyTimeout is answered 408, nothing written', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const head = Buffer.from('label\na\n');
    const { response, before, after } = await observe(t.connection, () =>
      streamUpload(t.app, '/pails/import', {
        method: 'POST',
        head,
        total: head.length + 16,
        headers: { 'Content-Type': 'text/csv' },
        pauseAfter: { bytes: head.length, until: released },
      }),
    );
    release();
    expect({ status: response.status, code: response.body?.code }).toEqual({ status: 408, code: 'MR_REQUEST_TIMEOUT' });
    expect(after.text).toBe(before.text);
  });

  it(
    'bounds the imports at once (admission.imports: 1 here): while one waits on its client, the next is a 503 with Retry-After before its body is read; ' +
      'the place comes back with the answer',
    async () => {
      const admission = t.app.get<Admission>(ADMISSION, { strict: false });
      const entered = new Promise((resolve) => admission.once('imports', resolve));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const head = Buffer.from('label\na\n');
      // Paused until released, well inside the default body time-out: the place is held until then, whatever the machine's pace.
      const slow = streamUpload(t.app, '/tubs/import', {
        method: 'POST',
        head,
        total: head.length + 16,
        headers: { 'Content-Type': 'text/csv' },
        pauseAfter: { bytes: head.length, until: released },
      });
      await entered;
      const refused = await expectRefusedUnchanged(t.connection, () => csv('/tubs/import', 'label\nb\n'), { status: 503, code: 'MR_OVERLOADED' });
      expect(refused.headers['retry-after']).toBe('1');
      // The other routes are not held by the import.
      await t.http().get('/tubs').expect(200);
      release();
      expect((await slow).status).toBe(200);
      expect(admission.bounds.imports).toBe(0);
      expect((await csv('/tubs/import', 'label\nb\n').expect(200)).body).toEqual(report({ rows: 1, created: 1 }));
    },
  );
}
