import 'reflect-metadata';
import type { IncomingMessage } from 'node:http';
import { createInterface } from 'node:readline';
import { Controller, HttpCode, Module, Post, Req, UnsupportedMediaTypeException } from '@nestjs/common';
import { InjectModel, MongooseModule, SchemaFactory } from '@nestjs/mongoose';
import { plainToInstance } from 'class-transformer';
import { IsDefined, IsMongoId, IsNumber, IsOptional, IsString, validate, type ValidatorOptions } from 'class-validator';
import { parse } from 'csv-parse';
import type { Model } from 'mongoose';
import { Entrepreneur } from '../models.js';
import { companySchema, createNestApp, listen, settings } from './serve.js';

/**
 * `npm run bench:import`: `POST /companies/import` (a CSV file or NDJSON) as a user would write it
 * by hand, without the library: the body read as it arrives (csv-parse with a header row, the
 * `employees` cell cast to a number and empty cells left out; or the lines split by `readline`,
 * each `JSON.parse`d), and every `BENCH_IMPORT_BATCH` rows (default 500) checked and written at
 * once: each row validated by class-validator on a DTO class equivalent to the library's create
 * DTO of `Company` (`whitelist` + `forbidNonWhitelisted`, as the library validates), the owners
 * the batch's valid rows name looked up in one `$in` query (a row naming no entrepreneur is
 * refused), then one `insertMany(rows, { ordered: false })`. Answers a report of the same counts
 * as the library's (rows, created, refused, the refused rows' numbers and messages). No bound, no
 * admission, no dry run, no upsert.
 */
const BATCH = Number(process.env.BENCH_IMPORT_BATCH) || 500;

/** The library's create DTO of `Company`, as a user writes it. */
class CreateCompanyDto {
  @IsDefined({ message: '$property is required' }) @IsString() niceName!: string;
  @IsOptional() @IsMongoId() owner?: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) employees?: number;
  @IsOptional() @IsString() location?: string;
}

const VALIDATION: ValidatorOptions = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: false,
  validationError: { target: false, value: false },
};
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

interface Row {
  row: number;
  value: Record<string, unknown>;
}

interface Report {
  rows: number;
  created: number;
  refused: number;
  errors: Array<{ row: number; message: string }>;
}

/** The records of a CSV body as objects: a header row names the keys, empty cells are left out, `employees` is a number. */
async function* csvRows(body: IncomingMessage): AsyncGenerator<Record<string, unknown>> {
  for await (const record of body.pipe(parse({ bom: true, columns: true, skip_empty_lines: true })) as AsyncIterable<Record<string, string>>) {
    const value: Record<string, unknown> = {};
    for (const [key, cell] of Object.entries(record)) {
      if (cell !== '') value[key] = key === 'employees' && NUMBER.test(cell) ? Number(cell) : cell;
    }
    yield value;
  }
}

/** The lines of an NDJSON body, each parsed (blank lines skipped). */
async function* ndjsonRows(body: IncomingMessage): AsyncGenerator<Record<string, unknown>> {
  for await (const line of createInterface({ input: body, crlfDelay: Infinity })) {
    if (line.trim()) yield JSON.parse(line) as Record<string, unknown>;
  }
}

@Controller()
class ImportController {
  constructor(
    @InjectModel('Company') private readonly companies: Model<unknown>,
    @InjectModel('Entrepreneur') private readonly entrepreneurs: Model<unknown>,
  ) {}

  @Post('companies/import')
  @HttpCode(200)
  async import(@Req() request: IncomingMessage): Promise<Report> {
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (type !== 'text/csv' && type !== 'application/x-ndjson') throw new UnsupportedMediaTypeException('send text/csv or application/x-ndjson');
    const report: Report = { rows: 0, created: 0, refused: 0, errors: [] };
    let batch: Row[] = [];
    for await (const value of type === 'text/csv' ? csvRows(request) : ndjsonRows(request)) {
      batch.push({ row: ++report.rows, value });
      if (batch.length === BATCH) {
        await this.write(batch, report);
        batch = [];
      }
    }
    if (batch.length) await this.write(batch, report);
    return report;
  }

  /** Validates a batch's rows, checks the owners they name in one query, and inserts the rest at once. */
  private async write(batch: Row[], report: Report): Promise<void> {
    const refuse = (row: number, message: string) => {
      report.refused++;
      report.errors.push({ row, message });
    };
    const checked = await Promise.all(batch.map(async (row) => ({ ...row, errors: await validate(plainToInstance(CreateCompanyDto, row.value), VALIDATION) })));
    const valid = checked.filter(({ row, errors }) => {
      if (errors.length) refuse(row, errors.flatMap((error) => Object.values(error.constraints ?? {})).join('; '));
      return !errors.length;
    });
    const owners = [...new Set(valid.flatMap(({ value }) => (typeof value.owner === 'string' ? [value.owner] : [])))];
    const found = new Set(
      owners.length ? (await this.entrepreneurs.find({ _id: { $in: owners } }, { _id: 1 }).lean<Array<{ _id: unknown }>>()).map(({ _id }) => String(_id)) : [],
    );
    const writes = valid.filter(({ row, value }) => {
      const missing = typeof value.owner === 'string' && !found.has(value.owner);
      if (missing) refuse(row, `owner ${String(value.owner)} names no entrepreneur`);
      return !missing;
    });
    if (!writes.length) return;
    let inserted: number;
    let failure = 'refused by the schema';
    try {
      // Mongoose leaves out a document its schema refuses, and inserts the others.
      inserted = (
        await this.companies.insertMany(
          writes.map(({ value }) => value),
          { ordered: false },
        )
      ).length;
    } catch (error) {
      // A write error (a duplicate key): ordered: false, so the others are written; Mongoose lists those it inserted.
      const { insertedDocs = [], message } = error as { insertedDocs?: unknown[]; message: string };
      inserted = insertedDocs.length;
      failure = message;
    }
    report.created += inserted;
    // Which rows failed is not worth finding out here: the harness expects none, and fails the run on any.
    if (inserted < writes.length) {
      report.refused += writes.length - inserted;
      report.errors.push({ row: writes[0]!.row, message: `${writes.length - inserted} row(s) of the batch from this row not inserted: ${failure}` });
    }
  }
}

@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, { dbName: settings.dbName }),
    MongooseModule.forFeature([
      { name: 'Company', schema: companySchema() },
      { name: 'Entrepreneur', schema: SchemaFactory.createForClass(Entrepreneur) },
    ]),
  ],
  controllers: [ImportController],
})
class HandImportModule {}

await listen(await createNestApp(HandImportModule));
