import 'reflect-metadata';
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  BadRequestException,
  Body,
  ClassSerializerInterceptor,
  Controller,
  type ExecutionContext,
  Get,
  Headers,
  HttpCode,
  Injectable,
  Module,
  NotFoundException,
  Param,
  Post,
  Put,
  Query,
  Req,
  Res,
  SerializeOptions,
  UseInterceptors,
} from '@nestjs/common';
import { InjectModel, MongooseModule, SchemaFactory } from '@nestjs/mongoose';
import { Type } from 'class-transformer';
import { IsMongoId, IsNumber, IsOptional, IsString, validateSync } from 'class-validator';
import mongoose, { isValidObjectId, type Model, type PopulateOptions, type Query as MongooseQuery } from 'mongoose';
import { WriteSerializer } from '../../src/repository/write-serializer.js';
import { GUARANTEE_NAMES } from '../guarantees-table.js';
import { Company, Entrepreneur, Venture } from '../models.js';
import { companySchema, connectionOptions, createNestApp, groupsOf, listen, settings } from './serve.js';

/**
 * What a careful user would write by hand instead of the library, for the same routes: the same
 * input checks (known fields, an operator allowlist, bounded limit/skip, a written owner that must
 * exist), the same envelope, lean reads, counts issued concurrently with the find.
 */
/**
 * `BENCH_HANDWRITTEN_MAX_TIME_MS=<ms>`: the time limit the library puts on every query, put on this
 * server's reads too (its finds, counts and `$collStats`), for a comparison on equal terms; unset
 * (the default), it sets none, as most hand-written controllers do. On FerretDB v1 a query with
 * `maxTimeMS` costs more when such queries come back to back (see BENCHMARKS.md).
 *
 * `BENCH_HANDWRITTEN_GUARANTEES=<list>` (comma-separated, or `all`): the guarantees of the library's
 * write routes this server gives too, so that `npm run bench:guarantees` can price each one on a
 * controller that gives nothing else:
 * - `bound`: the library's time limit on every query (as `BENCH_HANDWRITTEN_MAX_TIME_MS=60000`);
 * - `check`: the write body checked with a class-validator DTO of the model's fields (whitelist,
 *   unknown fields refused), as the library checks every body before Mongoose sees it;
 * - `version`: every update increments the version key, and the answer carries an `ETag` from it;
 * - `queue`: the writes of one document run one after the other in this process (FerretDB v1
 *   does not apply an update atomically: without it concurrent updates are lost);
 * - `context`: each request's work runs in an `AsyncLocalStorage` context (the library's call
 *   record, read by overrides' `super` calls and by the repository).
 */
const given = (process.env.BENCH_HANDWRITTEN_GUARANTEES ?? '').split(',').filter(Boolean);
const guarantees = new Set<string>(given.includes('all') ? GUARANTEE_NAMES : given);
const TIME_LIMIT_MS = Number(process.env.BENCH_HANDWRITTEN_MAX_TIME_MS) || (guarantees.has('bound') ? 60_000 : undefined);
if (TIME_LIMIT_MS) {
  mongoose.plugin((schema) =>
    schema.pre(['find', 'findOne', 'countDocuments', 'findOneAndUpdate'], function (this: MongooseQuery<unknown, unknown>) {
      this.maxTimeMS(TIME_LIMIT_MS);
    }),
  );
}

const OPERATORS = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$regex',
  '$options',
  '$and',
  '$or',
  '$nor',
  '$not',
  '$elemMatch',
  '$all',
  '$size',
]);
const COMPANY_FIELDS = new Set(['_id', 'niceName', 'owner', 'employees', 'location']);
const WRITABLE = new Set(['niceName', 'owner', 'employees', 'location']);
const USER_FIELDS = new Set(['_id', 'niceName', 'birth']);
/** The most users a condition on the owner may match, as the library's `search.maxRelationIds`: past it a 400, never a cut. */
const MAX_OWNERS = 1000;
const VENTURE_FIELDS = new Set(['_id', 'niceName', 'employees', 'location']);
const VENTURE_ADMIN_FIELDS = new Set([...VENTURE_FIELDS, 'revenue']);

function checkFilter(filter: unknown, depth = 0, fields = COMPANY_FIELDS): Record<string, unknown> {
  if (filter === undefined) return {};
  if (!filter || typeof filter !== 'object' || Array.isArray(filter) || depth > 8) throw new BadRequestException('query must be an object');
  for (const [key, value] of Object.entries(filter)) {
    if (key.startsWith('$') ? !OPERATORS.has(key) : !fields.has(key) && depth === 0) throw new BadRequestException(`${key} is not allowed`);
    if (value && typeof value === 'object') {
      for (const item of Array.isArray(value) ? value : [value]) if (item && typeof item === 'object') checkFilter(item, depth + 1, fields);
    }
  }
  return filter as Record<string, unknown>;
}

/** The create body, with the schema's rules, for a global `ValidationPipe` (scenario "create with DTO validation"). */
class CreateCompanyDto {
  @IsString() niceName!: string;
  @IsOptional() @IsMongoId() owner?: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) employees?: number;
  @IsOptional() @IsString() location?: string;
}

/** The update body, with the schema's rules (the `check` guarantee). */
class UpdateCompanyDto {
  @IsOptional() @IsString() niceName?: string;
  @IsOptional() @IsMongoId() owner?: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) employees?: number;
  @IsOptional() @IsString() location?: string;
}

/** The `check` guarantee: the body as an instance of `dto`, validated as the library does (unknown fields refused), else a 400. */
function checked(body: Record<string, unknown>, dto: new () => object): Record<string, unknown> {
  if (!guarantees.has('check')) return body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new BadRequestException('the body must be an object');
  const instance = Object.assign(new dto(), body);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } });
  if (errors.length > 0)
    throw new BadRequestException(errors.map((error) => ({ path: error.property, message: Object.values(error.constraints ?? {}).join('; ') })));
  return body;
}

const calls = new AsyncLocalStorage<object>();
/** The `context` guarantee: `work` runs in a context of its own, as the library runs each route's work in its call. */
function inContext<R>(request: object, work: () => R): R {
  return guarantees.has('context') ? calls.run({ request }, work) : work();
}

const writes = new WriteSerializer();
/** The `queue` guarantee: the writes of one document one after the other, with the library's own write serialiser (as on FerretDB). */
function queued<R>(key: string, write: () => Promise<R>): Promise<R> {
  return guarantees.has('queue') ? writes.run(key, write) : write();
}

/** A page of ventures, typed so that `ClassSerializerInterceptor` applies `Venture`'s decorators to each document. */
class VenturePage {
  status!: Record<string, number>;
  @Type(() => Venture) result!: Venture[];
}

/** `ClassSerializerInterceptor` with the request's groups (`@SerializeOptions` can only give fixed ones). */
class GroupsSerializerInterceptor extends ClassSerializerInterceptor {
  protected override getContextOptions(context: ExecutionContext) {
    return { ...super.getContextOptions(context), groups: groupsOf(context.switchToHttp().getRequest()) };
  }
}

/**
 * The search the routes share: counts issued concurrently with the find, lean reads, the envelope;
 * with `populate`, Mongoose's populate of the page (one more `find` for the whole page). A sorted
 * search pages by keyset too (`list.after`, `status.next`), and `list.counted: false` (the request's
 * `Prefer: count=none`) leaves the count of matches out, as the library's routes do.
 */
async function searchPage<T>(
  model: Model<T>,
  filter: Record<string, unknown>,
  limit: unknown,
  skip: unknown,
  populate?: PopulateOptions,
  list: ListOptions = {},
) {
  const page = paging(limit, skip);
  if (list.after !== undefined && page.skip > 0) throw new BadRequestException('after and skip cannot be used together');
  const condition = list.after === undefined ? filter : withCondition(filter, keysetCondition(list.after, list.sort));
  // With a sort, one document more than the page tells whether another page follows.
  const find = model
    .find(condition)
    .select('-__v')
    .skip(page.skip)
    .limit(list.sort ? page.limit + 1 : page.limit);
  if (list.sort) find.sort(list.sort);
  const [count, match, found] = await Promise.all([
    collectionSize(model),
    list.counted === false ? undefined : model.countDocuments(filter),
    (populate ? find.populate(populate) : find).lean(),
  ]);
  const more = list.sort !== undefined && found.length > page.limit;
  const result = more ? found.slice(0, page.limit) : found;
  const next = more ? keysetCursor(result.at(-1) as Record<string, unknown>, list.sort!) : undefined;
  return {
    status: {
      count,
      search_count: result.length,
      ...(match === undefined ? {} : { match_count: match }),
      limit: page.limit,
      skip: page.skip,
      ...(next && { next }),
    },
    result,
  };
}

/** How a list is read beside its filter and paging: its sort, the cursor it continues, whether its matches are counted. */
interface ListOptions {
  sort?: Record<string, 1 | -1>;
  after?: unknown;
  counted?: boolean;
}

/**
 * `?sort=niceName` or `?sort=-niceName`: one known field, with `_id` as the tie-breaker in the same
 * direction (so one comparison serves both), `{ niceName: 1, _id: 1 }`.
 */
function sorting(sort: unknown): Record<string, 1 | -1> | undefined {
  if (sort === undefined) return undefined;
  if (typeof sort !== 'string') throw new BadRequestException('sort must be one field name');
  const field = sort.replace(/^-/, '');
  if (!COMPANY_FIELDS.has(field)) throw new BadRequestException(`cannot sort by ${field}`);
  const direction = sort.startsWith('-') ? -1 : 1;
  return field === '_id' ? { _id: direction } : { [field]: direction, _id: direction };
}

/** The cursor after a page's last document: its sort values, `_id` last, as base64url JSON (no MAC: decoded values are only compared with sortable fields). */
function keysetCursor(doc: Record<string, unknown>, sort: Record<string, 1 | -1>): string {
  return Buffer.from(JSON.stringify(Object.keys(sort).map((field) => doc[field]))).toString('base64url');
}

/**
 * The documents after a cursor of `keysetCursor`: `{ $or: [{ niceName: { $gt: v } }, { niceName: v,
 * _id: { $gt: id } }] }` (`$lt` descending); `{ _id: { $gt: id } }` for a sort by `_id` alone. A
 * cursor that is not one is a 400.
 */
function keysetCondition(after: unknown, sort: Record<string, 1 | -1> | undefined): Record<string, unknown> {
  if (!sort) throw new BadRequestException('after continues a sorted list: send its sort');
  const fields = Object.keys(sort);
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(String(after), 'base64url').toString('utf8'));
  } catch {
    throw new BadRequestException('after is not a cursor');
  }
  if (!Array.isArray(values) || values.length !== fields.length || values.some((value) => value === null || typeof value === 'object')) {
    throw new BadRequestException('after is not a cursor of this sort');
  }
  const id = objectId(String(values.at(-1)));
  const beyond = (field: string) => (sort[field] === 1 ? '$gt' : '$lt');
  if (fields.length === 1) return { _id: { [beyond('_id')]: id } };
  const [field] = fields as [string];
  return { $or: [{ [field]: { [beyond(field)]: values[0] } }, { [field]: values[0], _id: { [beyond('_id')]: id } }] };
}

/** Two conditions that must both hold: one object where they share no key, else `$and`. */
function withCondition(filter: Record<string, unknown>, condition: Record<string, unknown>): Record<string, unknown> {
  return Object.keys(condition).some((key) => key in filter) ? { $and: [filter, condition] } : { ...filter, ...condition };
}

/** `Prefer: count=none` (RFC 7240, as the library reads it): the list without its count of matches. */
function counted(prefer: string | undefined): boolean {
  return !/(^|[\s,;])count=none\b/.test(prefer ?? '');
}

/**
 * The collection's size from its metadata, as MongoDB's documentation advises and as the library
 * reads it: `$collStats`, or the estimate where the stage answers no count.
 */
async function collectionSize<T>(model: Model<T>): Promise<number> {
  const [stats] = await model.collection
    .aggregate<{ count?: number }>([{ $collStats: { count: {} } }], TIME_LIMIT_MS ? { maxTimeMS: TIME_LIMIT_MS } : {})
    .toArray();
  return typeof stats?.count === 'number' && stats.count >= 0 ? stats.count : model.estimatedDocumentCount();
}

/** The owner's condition AND the client's filter: one object where they share no key, else `$and` (the client's can never replace the owner's). */
function ownedBy(id: string, filter: Record<string, unknown>): Record<string, unknown> {
  const owner = objectId(id);
  return 'owner' in filter ? { $and: [{ owner }, filter] } : { owner, ...filter };
}

/**
 * `?expand=owner` as a careful user writes it: Mongoose's `populate`, without the version key (the
 * owner's hidden fields, `select: false` in its schema, stay out by Mongoose's default); anything
 * else named is refused.
 */
function ownerPopulate(expand: unknown): PopulateOptions | undefined {
  if (expand === undefined) return undefined;
  if (expand !== 'owner') throw new BadRequestException('only owner can be expanded');
  return { path: 'owner', select: '-__v' };
}

/**
 * A filter's top-level conditions on the owner's fields (`owner.niceName`), apart from the company's own (`checkFilter` then refuses what is not an object).
 */
function splitOwnerConditions(filter: unknown): { own: unknown; owner: Record<string, unknown> } {
  if (!filter || typeof filter !== 'object' || Array.isArray(filter)) return { own: filter, owner: {} };
  const entries = Object.entries(filter);
  return {
    own: Object.fromEntries(entries.filter(([key]) => !key.startsWith('owner.'))),
    owner: Object.fromEntries(entries.filter(([key]) => key.startsWith('owner.')).map(([key, value]) => [key.slice('owner.'.length), value])),
  };
}

function paging(limit: unknown, skip: unknown): { limit: number; skip: number } {
  const l = limit === undefined ? 20 : Number(limit);
  const s = skip === undefined ? 0 : Number(skip);
  if (!Number.isInteger(l) || l < 1 || !Number.isInteger(s) || s < 0 || s > 10000) throw new BadRequestException('bad limit or skip');
  return { limit: Math.min(l, 100), skip: s };
}

function objectId(id: string): string {
  if (!isValidObjectId(id) || !/^[0-9a-f]{24}$/i.test(id)) throw new BadRequestException('invalid id');
  return id;
}

function writable(body: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(body ?? {})) if (!WRITABLE.has(key)) throw new BadRequestException(`unknown field ${key}`);
  return body;
}

@Injectable()
class CompanyService {
  constructor(
    @InjectModel('Company') private readonly companies: Model<Company>,
    @InjectModel('Entrepreneur') private readonly users: Model<Entrepreneur>,
  ) {}

  async one(id: string) {
    const doc = await this.companies.findById(objectId(id)).select('-__v').lean();
    if (!doc) throw new NotFoundException();
    return doc;
  }

  async create(body: Record<string, unknown>) {
    const data = checked(writable(body), CreateCompanyDto);
    await this.ownerExists(data);
    const doc = await this.companies.create(data);
    const { __v, ...plain } = doc.toObject();
    void __v;
    return plain;
  }

  async update(id: string, body: Record<string, unknown>) {
    const data = checked(writable(body), UpdateCompanyDto);
    await this.ownerExists(data);
    const update = guarantees.has('version') ? { $set: data, $inc: { __v: 1 } } : { $set: data };
    // No projection on findAndModify: FerretDB v1 does not implement one.
    const doc = await queued(id, () => this.companies.findByIdAndUpdate(objectId(id), update, { returnDocument: 'after', runValidators: true }).lean().exec());
    if (!doc) throw new NotFoundException();
    const { __v, ...plain } = doc;
    return { plain, version: __v };
  }

  search(filter: Record<string, unknown>, limit: unknown, skip: unknown, expand?: unknown, list?: ListOptions) {
    return searchPage(this.companies, filter, limit, skip, ownerPopulate(expand), list);
  }

  /**
   * A search that may hold conditions on the owner's fields, in the two steps a careful user writes:
   * the matching users' ids (at most `MAX_OWNERS`, else a 400), then the companies with
   * `owner: { $in: ids }` beside the search's own conditions.
   */
  async searchAcrossOwner(query: unknown, limit: unknown, skip: unknown) {
    const { own, owner } = splitOwnerConditions(query);
    const filter = checkFilter(own);
    if (Object.keys(owner).length === 0) return this.search(filter, limit, skip);
    const users = await this.users
      .find(checkFilter(owner, 0, USER_FIELDS))
      .select('_id')
      .limit(MAX_OWNERS + 1)
      .batchSize(MAX_OWNERS + 1)
      .lean();
    if (users.length > MAX_OWNERS) throw new BadRequestException(`the condition on the owner matches more than ${MAX_OWNERS} users`);
    const owned = { owner: { $in: users.map((user) => user._id) } };
    return this.search('owner' in filter ? { $and: [owned, filter] } : { ...filter, ...owned }, limit, skip);
  }

  /** A written owner must name a user, as the library checks it: one lookup by `_id`. */
  private async ownerExists(body: Record<string, unknown>): Promise<void> {
    if (body?.owner === undefined || body.owner === null) return;
    if (!(await this.users.exists({ _id: objectId(String(body.owner)) }))) throw new BadRequestException('no such owner');
  }

  async owner(id: string) {
    const company = await this.one(id);
    if (!company.owner) throw new NotFoundException('no owner');
    const owner = await this.users.findById(company.owner).select('-__v').lean();
    if (!owner) throw new NotFoundException('owner deleted');
    return owner;
  }
}

/** The response, as both platforms let a handler set a header on it. */
interface Reply {
  header(name: string, value: string): void;
}

@Controller()
class CompanyController {
  constructor(private readonly service: CompanyService) {}

  @Get('company/:id') one(@Param('id') id: string) {
    return this.service.one(id);
  }

  @Post('company') create(@Body() body: CreateCompanyDto, @Res({ passthrough: true }) res: Reply, @Req() request: object) {
    return inContext(request, async () => {
      const doc = await this.service.create(body as unknown as Record<string, unknown>);
      res.header('Location', `/company/${String(doc._id)}`);
      if (guarantees.has('version')) res.header('ETag', `"${String(doc._id)}-0"`);
      return doc;
    });
  }

  @Put('company/:id') update(@Param('id') id: string, @Body() body: Record<string, unknown>, @Res({ passthrough: true }) res: Reply, @Req() request: object) {
    return inContext(request, async () => {
      const { plain, version } = await this.service.update(id, body);
      if (guarantees.has('version')) res.header('ETag', `"${id}-${Number(version)}"`);
      return plain;
    });
  }

  @Get('companies') searchGet(@Query() query: Record<string, string>, @Headers('prefer') prefer?: string) {
    const { limit, skip, expand, sort, after, ...filter } = query;
    return this.service.search(checkFilter(filter), limit, skip, expand, { sort: sorting(sort), after, counted: counted(prefer) });
  }

  @Post('companies') @HttpCode(200) searchPost(@Body() body: { query?: unknown; limit?: unknown; skip?: unknown }) {
    return this.service.searchAcrossOwner(body.query, body.limit, body.skip);
  }

  @Get('company/:id/owner') owner(@Param('id') id: string) {
    return this.service.owner(id);
  }

  @Get('user/:id/companies/owner') reverseGet(@Param('id') id: string, @Query() query: Record<string, string>) {
    const { limit, skip, ...filter } = query;
    return this.service.search(ownedBy(id, checkFilter(filter)), limit, skip);
  }

  @Post('user/:id/companies/owner') @HttpCode(200) reversePost(@Param('id') id: string, @Body() body: { query?: unknown; limit?: unknown; skip?: unknown }) {
    return this.service.search(ownedBy(id, checkFilter(body.query)), body.limit, body.skip);
  }
}

@Controller()
class VentureController {
  constructor(@InjectModel('Venture') private readonly ventures: Model<Venture>) {}

  /** Group-only fields are unknown to the filters of the requests that do not see them, as in the library. */
  @Get('ventures')
  @UseInterceptors(GroupsSerializerInterceptor)
  @SerializeOptions({ type: VenturePage })
  async search(@Query() query: Record<string, string>, @Req() request: { headers: Record<string, string> }) {
    const { limit, skip, ...filter } = query;
    const fields = groupsOf(request).includes('admin') ? VENTURE_ADMIN_FIELDS : VENTURE_FIELDS;
    const page = await searchPage(this.ventures, checkFilter(filter, 0, fields), limit, skip);
    // class-transformer would take an ObjectId apart: ids leave as strings, as the library's do.
    return { ...page, result: page.result.map((doc) => ({ ...doc, _id: String(doc._id) })) };
  }
}

@Module({
  imports: [
    MongooseModule.forRoot(settings.uri, connectionOptions()),
    MongooseModule.forFeature([
      { name: 'Entrepreneur', schema: SchemaFactory.createForClass(Entrepreneur) },
      { name: 'Company', schema: companySchema() },
      { name: 'Venture', schema: SchemaFactory.createForClass(Venture) },
    ]),
  ],
  controllers: [CompanyController, VentureController],
  providers: [CompanyService],
})
class HandwrittenModule {}

await listen(await createNestApp(HandwrittenModule));
