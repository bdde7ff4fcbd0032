import 'reflect-metadata';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BadRequestException, Controller, Get, Module, Query, Res } from '@nestjs/common';
import { InjectModel, MongooseModule } from '@nestjs/mongoose';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import type { Model, Types } from 'mongoose';
import { companySchema, createNestApp, listen, settings } from './serve.js';

/**
 * `npm run bench:export`: `GET /companies/export?format=csv|ndjson|json|xlsx` as a user would write it
 * by hand, without the library: one cursor of Mongoose's driver (`find().sort({ _id: 1 })`, lean,
 * 500 documents per batch, as the library reads), each document made plain (ids as strings, no
 * version key), then csv-stringify (a BOM, a header row, formula-like text prefixed with `'`),
 * a line of `JSON.stringify` per document, one JSON array, or exceljs's streaming `WorkbookWriter`
 * (no shared strings, no styles), piped into the response with backpressure. `?limit=<n>` exports
 * the first n (the harness's warm-up). The same columns, cells and bytes as the library's export of
 * `Company`; no search, no bound, no view.
 */
const COLUMNS = ['_id', 'niceName', 'owner', 'employees', 'location'] as const;
const MEDIA_TYPES: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  ndjson: 'application/x-ndjson',
  json: 'application/json; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};
const FORMULA_START = /^[=+\-@\t\r]/;

interface StoredCompany {
  _id: Types.ObjectId;
  niceName: string;
  owner?: Types.ObjectId;
  employees?: number;
  location?: string;
}
type PlainCompany = Record<(typeof COLUMNS)[number], string | number | undefined>;

/** Express's response, or Fastify's reply (whose Node response is `raw`, once the reply is hijacked). */
type AnyResponse = ServerResponse | { raw: ServerResponse; hijack(): void };

/** Each lean document as the client reads it: ids as strings. */
function plain(): Transform {
  return new Transform({
    objectMode: true,
    transform(doc: StoredCompany, _encoding, done) {
      done(null, { _id: String(doc._id), niceName: doc.niceName, owner: doc.owner && String(doc.owner), employees: doc.employees, location: doc.location });
    },
  });
}

/** A JSON text per document: `line` makes the text of the first (`first`) and of the others. */
function texts(line: (doc: PlainCompany, first: boolean) => string, end = ''): Transform {
  let first = true;
  return new Transform({
    writableObjectMode: true,
    transform(doc: PlainCompany, _encoding, done) {
      done(null, line(doc, first));
      first = false;
    },
    flush(done) {
      done(null, end && (first ? '[]' : end));
    },
  });
}

@Controller()
class ExportController {
  constructor(@InjectModel('Company') private readonly companies: Model<StoredCompany>) {}

  @Get('companies/export')
  async export(@Query('format') format: string | undefined, @Query('limit') limit: string | undefined, @Res() reply: AnyResponse): Promise<void> {
    const type = format ?? 'csv';
    if (!MEDIA_TYPES[type]) throw new BadRequestException('format must be one of csv, ndjson, json, xlsx');
    const response = 'raw' in reply ? (reply.hijack(), reply.raw) : reply;
    const cursor = this.companies
      .find()
      .select('-__v')
      .sort({ _id: 1 })
      .limit(Number(limit) || 0)
      .batchSize(500)
      .lean<StoredCompany[]>()
      .cursor();
    response.writeHead(200, {
      'Content-Type': MEDIA_TYPES[type],
      'Content-Disposition': `attachment; filename="companies.${type}"`,
      'Cache-Control': 'no-store',
    });
    try {
      if (type === 'xlsx') await this.workbook(cursor, response);
      else await pipeline(cursor, plain(), this.encoder(type), response);
    } catch {
      // The client went away, or the engine failed mid-way: the transfer is aborted.
      await cursor.close();
      response.destroy();
    }
  }

  private encoder(type: string): Transform {
    if (type === 'ndjson') return texts((doc) => `${JSON.stringify(doc)}\n`);
    if (type === 'json') return texts((doc, first) => `${first ? '[' : ',\n'}${JSON.stringify(doc)}`, ']\n');
    return stringify({ header: true, columns: [...COLUMNS], bom: true, cast: { string: (value) => (FORMULA_START.test(value) ? `'${value}` : value) } });
  }

  /** A row per document, the next taken once the response has room: the client's pace sets the reads'. */
  private async workbook(cursor: AsyncIterable<StoredCompany>, response: ServerResponse): Promise<void> {
    const book = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: response, useStyles: false, useSharedStrings: false });
    const sheet = book.addWorksheet('Company');
    sheet.addRow([...COLUMNS]).commit();
    for await (const doc of cursor) {
      sheet.addRow([String(doc._id), doc.niceName, doc.owner ? String(doc.owner) : null, doc.employees ?? null, doc.location ?? null]).commit();
      if (response.writableNeedDrain) await once(response, 'drain');
    }
    sheet.commit();
    await book.commit();
  }
}

@Module({
  imports: [MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }), MongooseModule.forFeature([{ name: 'Company', schema: companySchema() }])],
  controllers: [ExportController],
})
class HandExportModule {}

await listen(await createNestApp(HandExportModule));
