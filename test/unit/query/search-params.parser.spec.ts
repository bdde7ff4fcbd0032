import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { DEFAULT_SEARCH_OPTIONS } from '../../../src/query/search-defaults.js';
import type { SearchRules } from '../../../src/query/search-params.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../../../src/query/search-params.parser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function searchParamsParserSpec(): void {
  @Schema()
  class SearchedCompany {
    @Prop({ required: true }) niceName!: string;
    @Prop() employees?: number;
    @Prop() location?: string;
    @Prop([String]) tags?: string[];
    @Prop({ type: MongooseSchema.Types.Mixed }) meta?: unknown;
    @Prop({ select: false }) secret?: string;
  }

  const rules: SearchRules = {
    fields: createFieldRules(SchemaFactory.createForClass(SearchedCompany)),
    search: DEFAULT_SEARCH_OPTIONS,
  };

  function refusal(run: () => unknown): ModelRoutesException {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ModelRoutesException);
      expect((error as ModelRoutesException).code).toBe('MR_INVALID_QUERY');
      return error as ModelRoutesException;
    }
    throw new Error('expected the input to be refused');
  }

  const pathOf = (run: () => unknown) => refusal(run).details![0].path;

  describe('parseSearchBody', () => {
    it.each([undefined, null, {}])('%p gives the defaults, without sort or select', (body) => {
      expect(parseSearchBody(body, rules)).toStrictEqual({ filter: {}, limit: 20, skip: 0 });
    });

    it('parses a full body', () => {
      const query = { niceName: { $regex: '^A' }, employees: { $gte: 10 } };
      expect(parseSearchBody({ query, limit: 5, skip: 10, sort: { employees: -1, niceName: 1 }, select: ['niceName', 'employees'] }, rules)).toStrictEqual({
        filter: query,
        limit: 5,
        skip: 10,
        sort: { employees: -1, niceName: 1 },
        select: ['niceName', 'employees'],
      });
    });

    describe('limit', () => {
      it.each([
        [1, 1],
        [20, 20],
        [100, 100],
        [101, 100],
        [500, 100],
      ])('%p → %p', (limit, expected) => {
        expect(parseSearchBody({ limit }, rules).limit).toBe(expected);
      });

      it.each([0, -1, 2.5, '10', null, true, Number.MAX_SAFE_INTEGER + 1, NaN])('refuses %p', (limit) => {
        expect(pathOf(() => parseSearchBody({ limit }, rules))).toBe('limit');
      });

      it('uses the defaultLimit and maxLimit of the rules', () => {
        const custom: SearchRules = { ...rules, search: { ...DEFAULT_SEARCH_OPTIONS, defaultLimit: 7, maxLimit: 10 } };
        expect(parseSearchBody({}, custom).limit).toBe(7);
        expect(parseSearchBody({ limit: 11 }, custom).limit).toBe(10);
      });
    });

    describe('skip', () => {
      it.each([0, 1, 9999, 10000])('accepts %p', (skip) => {
        expect(parseSearchBody({ skip }, rules).skip).toBe(skip);
      });

      it.each([-1, 10001, 1.5, '3'])('refuses %p', (skip) => {
        expect(pathOf(() => parseSearchBody({ skip }, rules))).toBe('skip');
      });

      it('uses the maxSkip of the rules', () => {
        const custom: SearchRules = { ...rules, search: { ...DEFAULT_SEARCH_OPTIONS, maxSkip: 0 } };
        expect(parseSearchBody({ skip: 0 }, custom).skip).toBe(0);
        expect(refusal(() => parseSearchBody({ skip: 1 }, custom)).message).toContain('at most 0');
      });
    });

    describe('sort', () => {
      it.each<[unknown, Record<string, 1 | -1>]>([
        [
          { employees: -1, niceName: 1 },
          { employees: -1, niceName: 1 },
        ],
        [
          { employees: 'desc', niceName: 'asc' },
          { employees: -1, niceName: 1 },
        ],
        [
          { employees: 'descending', niceName: 'ascending' },
          { employees: -1, niceName: 1 },
        ],
        [
          { employees: '-1', niceName: '1' },
          { employees: -1, niceName: 1 },
        ],
        ['-employees niceName', { employees: -1, niceName: 1 }],
        ['-employees,niceName', { employees: -1, niceName: 1 }],
        ['-employees, niceName', { employees: -1, niceName: 1 }],
        ['+niceName', { niceName: 1 }],
        ['meta.rank', { 'meta.rank': 1 }],
      ])('%p', (sort, expected) => {
        expect(parseSearchBody({ sort }, rules).sort).toStrictEqual(expected);
      });

      it('keeps the order of the sort keys', () => {
        expect(Object.keys(parseSearchBody({ sort: 'niceName -employees location' }, rules).sort!)).toEqual(['niceName', 'employees', 'location']);
      });

      it.each<[unknown, string]>([
        ['', 'sort'],
        [' , ', 'sort'],
        [{}, 'sort'],
        [5, 'sort'],
        [['niceName'], 'sort'],
        [{ employees: 0 }, 'sort.employees'],
        [{ employees: 2 }, 'sort.employees'],
        [{ employees: 'up' }, 'sort.employees'],
        ['nope', 'sort.nope'],
        [{ nope: 1 }, 'sort.nope'],
        ['-secret', 'sort.secret'],
        [{ constructor: 1 }, 'sort.constructor'],
        ['-', 'sort.'],
      ])('refuses %p at %s', (sort, path) => {
        expect(pathOf(() => parseSearchBody({ sort }, rules))).toBe(path);
      });
    });

    describe('select', () => {
      it.each<[unknown, string[]]>([
        [
          ['niceName', 'employees'],
          ['niceName', 'employees'],
        ],
        ['niceName employees', ['niceName', 'employees']],
        ['niceName,employees', ['niceName', 'employees']],
        [['_id'], ['_id']],
        ['meta.x', ['meta.x']],
      ])('%p', (select, expected) => {
        expect(parseSearchBody({ select }, rules).select).toEqual(expected);
      });

      it.each<[unknown, string]>([
        [[], 'select'],
        ['', 'select'],
        [['niceName', 1], 'select'],
        [{ niceName: 1 }, 'select'],
        [['secret'], 'select.secret'],
        ['niceName nope', 'select.nope'],
        [['__proto__'], 'select.__proto__'],
        [['__v'], 'select.__v'],
      ])('refuses %p at %s', (select, path) => {
        expect(pathOf(() => parseSearchBody({ select }, rules))).toBe(path);
      });
    });

    it.each<[string, unknown, string]>([
      ['an unknown body key', { filter: { niceName: 'a' } }, 'filter'],
      ['a __proto__ body key', JSON.parse('{"__proto__": {"limit": 1}}'), '__proto__'],
      ['a constructor body key', { constructor: 1 }, 'constructor'],
      ['a disallowed operator in query', { query: { $or: [{ $where: 'x' }] } }, 'query.$or.0.$where'],
      ['a hidden field in query', { query: { secret: 'x' } }, 'query.secret'],
      ['a non-object query', { query: 'niceName=a' }, 'query'],
    ])('refuses %s', (_label, body, path) => {
      expect(pathOf(() => parseSearchBody(body, rules))).toBe(path);
    });
  });

  it.each([[[{ query: {} }]], ['query'], [42]])('parseSearchBody refuses the non-object body %j as MR_INVALID_BODY', (body) => {
    expect(() => parseSearchBody(body, rules)).toThrow(
      expect.objectContaining({ code: 'MR_INVALID_BODY', details: [{ path: 'body', message: 'The request body must be a JSON object' }] }),
    );
  });

  describe('parseSearchQueryString', () => {
    it.each([undefined, {}])('%p gives the defaults', (query) => {
      expect(parseSearchQueryString(query, rules)).toStrictEqual({ filter: {}, limit: 20, skip: 0 });
    });

    it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
      ['field=value, sent as the POST search would send it', { niceName: 'Acme' }, { niceName: 'Acme' }],
      ['field[eq]=value', { 'niceName[eq]': 'Acme' }, { niceName: { $eq: 'Acme' } }],
      ['employees[gte]=10', { 'employees[gte]': '10' }, { employees: { $gte: '10' } }],
      ['two operators on one field', { 'employees[gte]': '10', 'employees[lt]': '20' }, { employees: { $gte: '10', $lt: '20' } }],
      ['bracket object from an extended parser', { employees: { gte: '10', lt: '20' } }, { employees: { $gte: '10', $lt: '20' } }],
      ['tags[in]=a,b', { 'tags[in]': 'a,b' }, { tags: { $in: ['a', 'b'] } }],
      ['tags[in] given twice', { 'tags[in]': ['a', 'b'] }, { tags: { $in: ['a', 'b'] } }],
      ['tags[nin]=a', { 'tags[nin]': 'a' }, { tags: { $nin: ['a'] } }],
      ['tags[all]=a,b', { 'tags[all]': 'a,b' }, { tags: { $all: ['a', 'b'] } }],
      ['location[exists]=true', { 'location[exists]': 'true' }, { location: { $exists: true } }],
      ['location[exists]=false', { 'location[exists]': 'false' }, { location: { $exists: false } }],
      ['tags[size]=2', { 'tags[size]': '2' }, { tags: { $size: 2 } }],
      ['niceName[regex] with options', { 'niceName[regex]': '^A', 'niceName[options]': 'i' }, { niceName: { $regex: '^A', $options: 'i' } }],
      ['niceName[ne]', { 'niceName[ne]': 'x' }, { niceName: { $ne: 'x' } }],
      ['dotted path', { 'meta.rank[lte]': '3' }, { 'meta.rank': { $lte: '3' } }],
    ])('%s', (_label, query, filter) => {
      const parsed = parseSearchQueryString(query, rules);
      expect(parsed.filter).toStrictEqual(filter);
      expect(parsed.limit).toBe(20);
      expect(parsed.skip).toBe(0);
    });

    it('reads the reserved parameters limit, skip, sort and select, and keeps them out of the filter', () => {
      expect(
        parseSearchQueryString({ niceName: 'Acme', limit: '5', skip: '10', sort: '-employees,niceName', select: 'niceName,employees' }, rules),
      ).toStrictEqual({
        filter: { niceName: 'Acme' },
        limit: 5,
        skip: 10,
        sort: { employees: -1, niceName: 1 },
        select: ['niceName', 'employees'],
      });
    });

    it.each(['limit', 'skip'])('%s given twice is a 400 that says so (the trial of 2026-11-29 read "must be an integer")', (name) => {
      expect(() => parseSearchQueryString({ [name]: ['1', '2'] }, rules)).toThrow(
        expect.objectContaining({ code: 'MR_INVALID_QUERY', message: expect.stringContaining(`Parameter '${name}' is given more than once`) }),
      );
    });

    it('an array as the limit of a JSON body is still "must be an integer"', () => {
      expect(() => parseSearchBody({ limit: [1, 2] }, rules)).toThrow(
        expect.objectContaining({ message: expect.stringContaining('limit must be an integer') }),
      );
    });

    it('reads sort with spaces ("+" in a URL) and select given twice', () => {
      const parsed = parseSearchQueryString({ sort: '-employees niceName', select: ['niceName', 'location'] }, rules);
      expect(parsed.sort).toStrictEqual({ employees: -1, niceName: 1 });
      expect(parsed.select).toEqual(['niceName', 'location']);
    });

    it.each([
      ['500', 100],
      ['100', 100],
      ['1', 1],
    ])('limit=%s → %p', (limit, expected) => {
      expect(parseSearchQueryString({ limit }, rules).limit).toBe(expected);
    });

    it.each<[Record<string, unknown>, string]>([
      [{ limit: '0' }, 'limit'],
      [{ limit: '-1' }, 'limit'],
      [{ limit: '1.5' }, 'limit'],
      [{ limit: 'abc' }, 'limit'],
      [{ limit: '' }, 'limit'],
      [{ limit: ['1', '2'] }, 'limit'],
      [{ skip: '-1' }, 'skip'],
      [{ skip: '10001' }, 'skip'],
      [{ skip: 'x' }, 'skip'],
      [{ sort: 'nope' }, 'sort.nope'],
      [{ select: 'secret' }, 'select.secret'],
    ])('refuses %p at %s', (query, path) => {
      expect(pathOf(() => parseSearchQueryString(query, rules))).toBe(path);
    });

    it.each<[string, Record<string, unknown>, string, string | null]>([
      ['a repeated parameter', { niceName: ['a', 'b'] }, 'query.niceName', 'more than once'],
      ['a repeated operator parameter', { 'employees[gte]': ['1', '2'] }, 'query.employees', 'more than once'],
      ['one condition in two spellings', { 'niceName[eq]': 'alpha', niceName: 'beta' }, 'query.niceName', 'more than once'],
      ['one condition in two spellings, the other order', { niceName: 'beta', 'niceName[eq]': 'alpha' }, 'query.niceName', 'more than once'],
      ['two spellings through a bracket parser', { niceName: ['beta', { eq: 'alpha' }] }, 'query.niceName', 'more than once'],
      ['$where', { 'niceName[where]': 'x' }, 'query.niceName.$where', 'not allowed'],
      ['$expr', { 'niceName[expr]': 'x' }, 'query.niceName.$expr', null],
      ['$or', { 'niceName[or]': 'x' }, 'query.niceName.$or', null],
      ['$and', { 'niceName[and]': 'x' }, 'query.niceName.$and', null],
      ['$not', { 'niceName[not]': 'x' }, 'query.niceName.$not', null],
      ['$elemMatch', { 'tags[elemMatch]': 'x' }, 'query.tags.$elemMatch', null],
      ['an unknown operator from an extended parser', { niceName: { where: 'x' } }, 'query.niceName.$where', null],
      ['a nested object operand', { employees: { gte: { x: '1' } } }, 'query.employees.$gte', 'plain value'],
      ['an unclosed bracket', { 'employees[gte': '1' }, 'query.employees[gte', null],
      ['a $-prefixed operator', { 'employees[$gte]': '1' }, 'query.employees[$gte]', 'Malformed'],
      ['two brackets', { 'a[b][c]': '1' }, 'query.a[b][c]', 'Malformed'],
      ['$exists with another value', { 'location[exists]': 'maybe' }, 'query.location.$exists', null],
      ['$size with a non-integer', { 'tags[size]': 'two' }, 'query.tags.$size', null],
      ['a non-string value', { niceName: 5 }, 'query.niceName.$eq', 'plain value'],
      ['an unknown field', { nope: 'x' }, 'query.nope', 'Unknown field'],
      ['a hidden field', { secret: 'x' }, 'query.secret', null],
      ['a hidden field with an operator', { 'secret[exists]': 'true' }, 'query.secret', null],
      ['a too long $regex', { 'niceName[regex]': 'a'.repeat(257) }, 'query.niceName.$regex', null],
      ['bad $options', { 'niceName[regex]': 'a', 'niceName[options]': 'g' }, 'query.niceName.$options', null],
      ['$options alone', { 'niceName[options]': 'i' }, 'query.niceName.$options', null],
    ])('refuses %s', (_label, query, path, message) => {
      const error = refusal(() => parseSearchQueryString(query, rules));
      expect(error.details![0].path).toBe(path);
      if (message !== null) expect(error.message).toContain(message);
    });
  });

  describe('keys that name built-in object properties', () => {
    afterEach(() => {
      // A failure here would mean a parse polluted every object of the process.
      expect(Object.prototype).not.toHaveProperty('$ne');
      expect(Object.prototype).not.toHaveProperty('$eq');
    });

    it.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])('refuses the sort direction %p', (direction) => {
      expect(pathOf(() => parseSearchBody({ sort: { employees: direction } }, rules))).toBe('sort.employees');
    });

    it('refuses a sort direction wrapped in an array', () => {
      expect(pathOf(() => parseSearchBody({ sort: { employees: [1] } }, rules))).toBe('sort.employees');
    });

    it.each([
      [{ '__proto__[ne]': 'polluted' }, 'query.__proto__'],
      [{ ['__proto__']: 'x' }, 'query.__proto__'],
      [{ 'constructor[eq]': 'x' }, 'query.constructor'],
      [{ toString: 'x', niceName: 'Acme' }, 'query.toString'],
      [{ valueOf: 'x' }, 'query.valueOf'],
      [{ hasOwnProperty: 'x' }, 'query.hasOwnProperty'],
    ])('refuses the query-string key in %j', (query, path) => {
      const params = Object.fromEntries(Object.entries(query));
      expect(pathOf(() => parseSearchQueryString(params, rules))).toBe(path);
    });

    it('returns ordinary objects to hand to Mongoose', () => {
      const { filter } = parseSearchQueryString({ 'employees[gte]': '10', niceName: 'Acme' }, rules);
      expect(filter).toStrictEqual({ employees: { $gte: '10' }, niceName: 'Acme' });
      expect(Object.getPrototypeOf(filter)).toBe(Object.prototype);
      expect(Object.getPrototypeOf(filter.employees)).toBe(Object.prototype);
    });
  });
}
