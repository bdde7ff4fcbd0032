import { Prop, Schema, raw } from '@nestjs/mongoose';
import ExcelJS from 'exceljs';
import { Types } from 'mongoose';
import { parse } from 'csv-parse/sync';
import { FileProp, GeneratedResource, type FileRef } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { asBytes } from '../../support/binary-body.js';

/** Issue 27, item 1: `GET|POST /<plural>/export` in CSV, NDJSON, JSON and XLSX, under the search's rules. */
export function exportRoutesSpec(): void {
  const engine = useEngine();

  @GeneratedResource({ path: 'carrier', plural: 'carriers' })
  @Schema()
  class Carrier {
    @Prop({ required: true }) name!: string;
    @Prop({ select: false }) apiKey?: string;
  }

  @Schema({ _id: false })
  class Parcel {
    @Prop() weight?: number;
    @Prop() label?: string;
  }

  @GeneratedResource({
    path: 'shipment',
    plural: 'shipments',
    routes: { export: true, exportPost: true },
    references: { carrier: { expand: true, reverseExport: true, reverseExportPost: true } },
    hidden: ['internalNote'],
  })
  @Schema({ timestamps: true })
  class Shipment {
    @Prop({ required: true }) code!: string;
    @Prop() note?: string;
    @Prop() internalNote?: string;
    @Prop() paid?: boolean;
    @Prop() weight?: number;
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: { city?: string; zip?: string };
    @Prop([String]) tags?: string[];
    @Prop({ type: [Parcel] }) parcels?: Parcel[];
    @Prop({ type: Types.ObjectId, ref: 'Carrier' }) carrier?: Types.ObjectId;
    @Prop() shippedAt?: Date;
    @FileProp({ accept: ['application/pdf'] }) waybill?: FileRef;
  }

  /** Not opted in: no export route. */
  @GeneratedResource({ path: 'crate', plural: 'crates' })
  @Schema()
  class Crate {
    @Prop() name?: string;
  }

  /** Exports of at most 3 documents. */
  @GeneratedResource({ path: 'pallet', plural: 'pallets', routes: { export: true }, search: { exportMaxRows: 3 } })
  @Schema()
  class Pallet {
    @Prop() n?: number;
  }

  let t: TestApp;
  let carrier: string;
  const shippedAt = new Date('2026-03-04T05:06:07.890Z');

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Carrier, Shipment, Crate, Pallet] });
    carrier = (await t.connection.model('Carrier').create({ name: 'Fast', apiKey: 'secret' }))._id.toString();
    await t.connection.model('Shipment').insertMany([
      {
        code: 'A1',
        note: '=HYPERLINK("http://evil","x")',
        internalNote: 'hidden',
        paid: true,
        weight: -2.5,
        address: { city: 'Lyon', zip: '69001' },
        tags: ['x', 'y'],
        parcels: [{ weight: 1, label: 'p' }],
        carrier,
        shippedAt,
      },
      { code: 'B2', note: '+cmd|calc', paid: false, weight: 3 },
      { code: 'C3', note: 'plain, with "quotes"\nand a line', tags: [] },
      { code: 'D4', note: '@SUM(1)' },
      { code: 'E5', note: '-1+2' },
    ]);
    await t.connection.model('Pallet').insertMany([1, 2, 3, 4, 5].map((n) => ({ n })));
  });
  afterAll(() => t?.close());

  const csvOf = (text: string) => parse(text, { bom: true, columns: true }) as Array<Record<string, string>>;

  it('is off until the resource turns it on: 404', async () => {
    expectNoRoute(await t.http().get('/crates/export'));
  });

  it('CSV by default: a header of dotted columns, one row per document, hidden fields out, dates in ISO 8601, a file name', async () => {
    const response = await t.http().get('/shipments/export?sort=code').expect(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="shipments.csv"; filename*=UTF-8''shipments.csv`);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text.charCodeAt(0)).toBe(0xfeff);
    const rows = csvOf(response.text);
    expect(Object.keys(rows[0])).toEqual([
      '_id',
      'code',
      'note',
      'paid',
      'weight',
      'address.city',
      'address.zip',
      'tags',
      'parcels',
      'carrier',
      'shippedAt',
      'waybill',
      'createdAt',
      'updatedAt',
    ]);
    expect(rows.map((row) => row.code)).toEqual(['A1', 'B2', 'C3', 'D4', 'E5']);
    expect(rows[0]).toMatchObject({
      paid: 'true',
      weight: '-2.5',
      'address.city': 'Lyon',
      tags: '["x","y"]',
      parcels: '[{"weight":1,"label":"p"}]',
      carrier,
      shippedAt: shippedAt.toISOString(),
    });
    expect(rows[1]).toMatchObject({ paid: 'false', 'address.city': '', tags: '[]' });
    expect(response.text).not.toContain('hidden');
  });

  it('neutralises text a spreadsheet would run as a formula (CSV), and keeps every other text as it was', async () => {
    const rows = csvOf((await t.http().get('/shipments/export?sort=code&select=code,note').expect(200)).text);
    expect(rows.map((row) => row.note)).toEqual(['\'=HYPERLINK("http://evil","x")', "'+cmd|calc", 'plain, with "quotes"\nand a line', "'@SUM(1)", "'-1+2"]);
    expect(Object.keys(rows[0])).toEqual(['_id', 'code', 'note']);
  });

  it('NDJSON and JSON hold the documents a search answers, in its order', async () => {
    const search = (await t.http().get('/shipments?sort=-code&limit=100').expect(200)).body.result;
    const ndjson = await t.http().get('/shipments/export?sort=-code&format=ndjson').expect(200);
    expect(ndjson.headers['content-type']).toBe('application/x-ndjson');
    expect(ndjson.headers['content-disposition']).toBe(`attachment; filename="shipments.ndjson"; filename*=UTF-8''shipments.ndjson`);
    expect(
      ndjson.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual(search);
    const json = await t.http().get('/shipments/export?sort=-code').set('Accept', 'application/json').expect(200);
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json.body).toEqual(search);
  });

  it('takes the search of POST /<plural> and expands as it does', async () => {
    const body = { query: { code: { $in: ['A1', 'B2'] } }, sort: 'code', expand: 'carrier' };
    const search = (await t.http().post('/shipments').send(body).expect(200)).body.result;
    const exported = await t.http().post('/shipments/export?format=json').send(body).expect(200);
    expect(exported.body).toEqual(search);
    expect(exported.body[0].carrier).toEqual({ _id: carrier, name: 'Fast' });
  });

  it('XLSX: a sheet named after the resource, a header row, typed cells, formula-like text stored as text', async () => {
    const response = await asBytes(t.http().get('/shipments/export?sort=code&format=xlsx')).expect(200);
    expect(response.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(response.headers['content-disposition']).toBe(`attachment; filename="shipments.xlsx"; filename*=UTF-8''shipments.xlsx`);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(response.body as never);
    const sheet = book.getWorksheet('Shipment')!;
    expect(sheet.getRow(1).values).toEqual([
      undefined,
      '_id',
      'code',
      'note',
      'paid',
      'weight',
      'address.city',
      'address.zip',
      'tags',
      'parcels',
      'carrier',
      'shippedAt',
      'waybill',
      'createdAt',
      'updatedAt',
    ]);
    expect(sheet.rowCount).toBe(6);
    const first = sheet.getRow(2);
    expect(first.getCell(2).value).toBe('A1');
    expect(first.getCell(3).value).toBe('=HYPERLINK("http://evil","x")');
    expect(first.getCell(3).type).toBe(ExcelJS.ValueType.String);
    expect(first.getCell(4).value).toBe(true);
    expect(first.getCell(5).value).toBe(-2.5);
    expect(first.getCell(11).value).toBe(shippedAt.toISOString());
  });

  it('refuses what the search routes refuse, in the error shape, before any byte', async () => {
    expectError(await t.http().get('/shipments/export?format=pdf'), 400, 'MR_INVALID_QUERY');
    expectError(await t.http().get('/shipments/export?internalNote=hidden'), 400, 'MR_INVALID_QUERY');
    expectError(await t.http().get('/shipments/export?sort=internalNote'), 400, 'MR_INVALID_QUERY');
    expectError(await t.http().get('/shipments/export?weight[gt]=heavy'), 400, 'MR_INVALID_VALUE');
    expectError(
      await t
        .http()
        .post('/shipments/export')
        .send({ query: { $where: 'sleep(1000)' } }),
      400,
      'MR_INVALID_QUERY',
    );
    expectError(await t.http().post('/shipments/export').set('Content-Type', 'application/json').send('{"query":'), 400, 'MR_INVALID_JSON');
  });

  it('without limit, a search that matches more than exportMaxRows is refused (MR_EXPORT_TOO_LARGE); with one, the first rows', async () => {
    expectError(await t.http().get('/pallets/export'), 400, 'MR_EXPORT_TOO_LARGE');
    expect(csvOf((await t.http().get('/pallets/export?n[lte]=3').expect(200)).text)).toHaveLength(3);
    expect(csvOf((await t.http().get('/pallets/export?sort=-n&limit=2').expect(200)).text).map((row) => row.n)).toEqual(['5', '4']);
    // A larger limit is lowered to the bound, as a search's is.
    expect(csvOf((await t.http().get('/pallets/export?limit=50').expect(200)).text)).toHaveLength(3);
  });

  it('the reverse routes export the documents of one parent, which a filter cannot widen; a missing parent is a 404', async () => {
    const other = (await t.connection.model('Carrier').create({ name: 'Slow' }))._id.toString();
    await t.connection.model('Shipment').create({ code: 'F6', carrier: other });
    try {
      const search = (await t.http().get(`/carrier/${carrier}/shipments/carrier?limit=100`).expect(200)).body.result;
      const exported = await t.http().get(`/carrier/${carrier}/shipments/carrier/export?format=json`).expect(200);
      expect(exported.headers['content-disposition']).toMatch(/^attachment; filename="shipments.json"/);
      expect(exported.body).toEqual(search);
      expect(exported.body.map((doc: { code: string }) => doc.code)).toEqual(['A1']);
      const widened = await t
        .http()
        .post(`/carrier/${carrier}/shipments/carrier/export?format=json`)
        .send({ query: { $or: [{ carrier: other }, { code: { $exists: true } }] } })
        .expect(200);
      expect(widened.body.map((doc: { code: string }) => doc.code)).toEqual(['A1']);
      expectError(await t.http().get(`/carrier/${new Types.ObjectId()}/shipments/carrier/export`), 404, 'MR_NOT_FOUND');
      expectError(await t.http().get('/carrier/nope/shipments/carrier/export'), 400, 'MR_INVALID_ID');
    } finally {
      await t.connection.model('Shipment').deleteOne({ code: 'F6' });
      await t.connection.model('Carrier').deleteOne({ _id: other });
    }
  });

  it('an empty match is a header alone, an empty array, an empty NDJSON', async () => {
    expect((await t.http().get('/shipments/export?code=none&select=code').expect(200)).text).toBe('\ufeff_id,code\n');
    expect((await t.http().get('/shipments/export?code=none&format=json').expect(200)).body).toEqual([]);
    expect((await t.http().get('/shipments/export?code=none&format=ndjson').expect(200)).text).toBe('');
  });
}
