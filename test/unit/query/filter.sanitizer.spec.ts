import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Types, Schema as MongooseSchema } from 'mongoose';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { DEFAULT_SEARCH_OPTIONS } from '../../../src/query/search-defaults.js';
import { sanitizeFilter } from '../../../src/query/filter.sanitizer.js';
import { QUERY_OPERATORS } from '../../../src/query/query-operators.js';
import type { SearchRules } from '../../../src/query/search-params.interface.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function filterSanitizerSpec(): void {
  const { maxQueryDepth: MAX_QUERY_DEPTH, maxQueryNodes: MAX_QUERY_NODES } = DEFAULT_SEARCH_OPTIONS;

  @Schema()
  class Score {
    @Prop() name?: string;
    @Prop() points?: number;
  }

  @Schema({ timestamps: true })
  class SanitizedCompany {
    @Prop({ required: true }) niceName!: string;
    @Prop() employees?: number;
    @Prop() location?: string;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Entrepreneur' }) owner?: Types.ObjectId;
    @Prop([String]) tags?: string[];
    @Prop({ type: MongooseSchema.Types.Mixed }) meta?: unknown;
    @Prop({ type: [Score] }) scores?: Score[];
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: Record<string, string>;
    @Prop({ select: false }) secret?: string;
  }

  const rules: SearchRules = {
    fields: createFieldRules(SchemaFactory.createForClass(SanitizedCompany)),
    search: DEFAULT_SEARCH_OPTIONS,
  };

  function refusal(filter: unknown, searchRules: SearchRules = rules, prefix?: string): ModelRoutesException {
    try {
      sanitizeFilter(filter, searchRules, prefix);
    } catch (error) {
      expect(error).toBeInstanceOf(ModelRoutesException);
      return error as ModelRoutesException;
    }
    throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
  }

  /** `{ meta: { a: { a: ... 1 } } }` with `levels` objects in all, the filter itself included. */
  function nested(levels: number): Record<string, unknown> {
    let value: unknown = 1;
    for (let i = 0; i < levels - 1; i++) value = { a: value };
    return { meta: value };
  }

  describe('sanitizeFilter: accepted filters', () => {
    it.each<[string, Record<string, unknown>]>([
      ['empty', {}],
      ['equality', { niceName: 'Acme' }],
      ['null equality', { location: null }],
      ['comparison', { employees: { $gte: 10, $lt: 100 } }],
      ['$eq and $ne', { niceName: { $eq: 'a' }, location: { $ne: 'b' } }],
      ['$gt and $lte', { employees: { $gt: 1, $lte: 9 } }],
      ['$in and $nin', { niceName: { $in: ['a', 'b'] }, location: { $nin: ['x'] } }],
      ['$all and $size', { tags: { $all: ['a', 'b'], $size: 2 } }],
      ['$exists', { location: { $exists: false } }],
      ['$regex with $options', { niceName: { $regex: '^A', $options: 'imsx' } }],
      ['$options before $regex', { niceName: { $options: 'i', $regex: '^A' } }],
      // 256 characters, but one character class: cheap to run (the cost check counts it once).
      ['$regex of the maximum length', { niceName: { $regex: `[${'a'.repeat(DEFAULT_SEARCH_OPTIONS.maxRegexLength - 2)}]` } }],
      ['$not', { niceName: { $not: { $regex: '^A' } } }],
      ['$or / $and / $nor', { $or: [{ niceName: 'a' }, { employees: { $gt: 1 } }], $and: [{ location: 'x' }], $nor: [{ tags: 'z' }] }],
      ['nested logical operators', { $and: [{ $or: [{ niceName: 'a' }, { $nor: [{ employees: 3 }] }] }] }],
      ['$elemMatch with relative field paths', { scores: { $elemMatch: { name: 'x', points: { $gt: 1 } } } }],
      ['$elemMatch with operators only', { tags: { $elemMatch: { $eq: 'a' } } }],
      ['$elemMatch with $or inside', { scores: { $elemMatch: { $or: [{ name: 'x' }, { points: 2 }] } } }],
      ['$all with $elemMatch items', { scores: { $all: [{ $elemMatch: { points: { $gt: 1 } } }] } }],
      ['dotted nested path', { 'address.city': 'Paris' }],
      ['nested parent with literal object', { address: { city: 'Paris', zip: '75001' } }],
      ['sub-path of a Mixed field', { 'meta.anything.deep': 1 }],
      ['sub-path of an array', { 'tags.0': 'a' }],
      ['sub-path of an array of sub-documents', { 'scores.points': { $gte: 3 } }],
      ['_id and timestamps', { _id: '64b7f0c2a1b2c3d4e5f60718', createdAt: { $gte: '2024-01-01' } }],
      ['a literal array', { tags: ['a', 'b'] }],
      ['reference field', { owner: '64b7f0c2a1b2c3d4e5f60718' }],
    ])('%s', (_label, filter) => {
      expect(sanitizeFilter(filter, rules)).toBe(filter);
    });

    it.each([undefined, null])('%p gives an empty filter', (filter) => {
      expect(sanitizeFilter(filter, rules)).toEqual({});
    });

    it(`accepts ${MAX_QUERY_DEPTH} levels of nesting`, () => {
      expect(() => sanitizeFilter(nested(MAX_QUERY_DEPTH), rules)).not.toThrow();
    });

    it(`accepts exactly ${MAX_QUERY_NODES} keys and items`, () => {
      // 1 key (tags) + 1 key ($in) + 998 items = 1000
      const filter = { tags: { $in: Array.from({ length: MAX_QUERY_NODES - 2 }, (_, i) => `t${i}`) } };
      expect(sanitizeFilter(filter, rules)).toBe(filter);
    });

    it('allows every operator of the allowlist somewhere', () => {
      expect(Object.keys(QUERY_OPERATORS).sort()).toEqual(
        [
          '$all',
          '$and',
          '$elemMatch',
          '$eq',
          '$exists',
          '$gt',
          '$gte',
          '$in',
          '$lt',
          '$lte',
          '$ne',
          '$nin',
          '$nor',
          '$not',
          '$options',
          '$or',
          '$regex',
          '$size',
        ].sort(),
      );
    });
  });

  describe('sanitizeFilter: refused filters', () => {
    it.each<[string, unknown, string]>([
      ['$where at top level', { $where: 'this.a > 1' }, 'query.$where'],
      ['$expr at top level', { $expr: { $gt: ['$a', 1] } }, 'query.$expr'],
      ['$function at top level', { $function: { body: 'x', args: [], lang: 'js' } }, 'query.$function'],
      ['$text at top level', { $text: { $search: 'x' } }, 'query.$text'],
      ['$comment at top level', { $comment: 'x' }, 'query.$comment'],
      ['$where inside $or', { $or: [{ $where: 'x' }] }, 'query.$or.0.$where'],
      ['$expr deep inside $and/$or', { $and: [{ niceName: 'a' }, { $or: [{ niceName: 'b' }, { $expr: {} }] }] }, 'query.$and.1.$or.1.$expr'],
      ['$where as a field operator', { employees: { $where: 'x' } }, 'query.employees.$where'],
      ['$function inside $not', { niceName: { $not: { $function: {} } } }, 'query.niceName.$not.$function'],
      ['$where inside $elemMatch', { scores: { $elemMatch: { $where: 'x' } } }, 'query.scores.$elemMatch.$where'],
      ['$expr inside a relative $elemMatch filter', { scores: { $elemMatch: { name: 'a', $expr: {} } } }, 'query.scores.$elemMatch.$expr'],
      ['operator inside an $in item', { niceName: { $in: [{ $where: 'x' }] } }, 'query.niceName.$in.0.$where'],
      ['operator inside a literal object', { address: { city: { a: { $where: 'x' } } } }, 'query.address.city.a.$where'],
      ['an unknown field', { nope: 1 }, 'query.nope'],
      ['an unknown field inside $or', { $or: [{ niceName: 'a' }, { nope: 1 }] }, 'query.$or.1.nope'],
      ['an unknown nested path', { 'address.street': 'x' }, 'query.address.street'],
      ['the version key', { __v: 0 }, 'query.__v'],
      ['a hidden field', { secret: 'x' }, 'query.secret'],
      ['a hidden field inside $or', { $or: [{ secret: 'x' }] }, 'query.$or.0.secret'],
      ['a sub-path of a hidden field', { 'secret.length': 3 }, 'query.secret.length'],
      ['an empty path segment', { 'meta..x': 1 }, 'query.meta..x'],
      ['a $regex longer than maxRegexLength', { niceName: { $regex: 'a'.repeat(257) } }, 'query.niceName.$regex'],
      ['a $regex that is not a string', { niceName: { $regex: 5 } }, 'query.niceName.$regex'],
      ['$options other than imsx', { niceName: { $regex: 'a', $options: 'g' } }, 'query.niceName.$options'],
      ['$options with an unsupported flag among good ones', { niceName: { $regex: 'a', $options: 'iu' } }, 'query.niceName.$options'],
      ['$options without $regex', { niceName: { $options: 'i' } }, 'query.niceName.$options'],
      ['$exists with a non-boolean', { location: { $exists: 'yes' } }, 'query.location.$exists'],
      ['$size with a negative number', { tags: { $size: -1 } }, 'query.tags.$size'],
      ['$size with a non-integer', { tags: { $size: 1.5 } }, 'query.tags.$size'],
      ['$in with a non-array', { niceName: { $in: 'a' } }, 'query.niceName.$in'],
      ['$not with a non-object', { niceName: { $not: 'a' } }, 'query.niceName.$not'],
      ['$elemMatch with a non-object', { tags: { $elemMatch: 'a' } }, 'query.tags.$elemMatch'],
      ['$or with an empty array', { $or: [] }, 'query.$or'],
      ['$or with an object', { $or: { niceName: 'a' } }, 'query.$or'],
      ['a non-object inside $and', { $and: ['x'] }, 'query.$and.0'],
      ['operators mixed with field names', { employees: { $gt: 1, other: 2 } }, 'query.employees'],
      ['a function value', { niceName: () => 1 }, 'query.niceName'],
      ['a string filter', 'niceName=a', 'query'],
      ['an array filter', [{ niceName: 'a' }], 'query'],
      ['a __proto__ key at top level', JSON.parse('{"__proto__": {"niceName": "a"}}'), 'query.__proto__'],
      ['a constructor key at top level', { constructor: 1 }, 'query.constructor'],
      ['a prototype key at top level', { prototype: 1 }, 'query.prototype'],
      ['a __proto__ key inside a Mixed value', { meta: JSON.parse('{"__proto__": {"polluted": true}}') }, 'query.meta.__proto__'],
      ['a constructor key inside a literal', { address: { constructor: { a: 1 } } }, 'query.address.constructor'],
      ['a __proto__ key inside $or', { $or: [JSON.parse('{"__proto__": 1}')] }, 'query.$or.0.__proto__'],
      ['a __proto__ key inside $in items', { meta: { $in: [JSON.parse('{"__proto__": 1}')] } }, 'query.meta.$in.0.__proto__'],
      ['a constructor path segment', { 'meta.constructor': 1 }, 'query.meta.constructor'],
    ])('%s', (_label, filter, path) => {
      const error = refusal(filter);
      expect(error.code).toBe('MR_INVALID_QUERY');
      expect(error.getStatus()).toBe(400);
      expect(error.details).toHaveLength(1);
      expect(error.details![0].path).toBe(path);
      expect(error.details![0].message).toBe(error.message);
    });

    it('names the refused operator', () => {
      expect(refusal({ $or: [{ $where: 'x' }] }).message).toContain('$where');
    });

    it('names the unknown field', () => {
      expect(refusal({ nope: 1 }).message).toContain("'nope'");
    });

    it(`refuses ${MAX_QUERY_DEPTH + 1} levels of nesting`, () => {
      const error = refusal(nested(MAX_QUERY_DEPTH + 1));
      expect(error.code).toBe('MR_INVALID_QUERY');
      expect(error.message).toContain(`deeper than ${MAX_QUERY_DEPTH}`);
      expect(error.details![0].path).toBe('query.meta.a.a.a.a.a.a.a');
    });

    it('refuses deeply nested logical operators', () => {
      let filter: Record<string, unknown> = { niceName: 'a' };
      for (let i = 0; i < 5; i++) filter = { $or: [filter] };
      const error = refusal(filter);
      expect(error.message).toContain('deeper than');
      expect(error.details![0].path.startsWith('query.$or.0.$or.0.$or.0.$or')).toBe(true);
    });

    it(`refuses more than ${MAX_QUERY_NODES} keys and items`, () => {
      const filter = { tags: { $in: Array.from({ length: MAX_QUERY_NODES - 1 }, (_, i) => `t${i}`) } };
      const error = refusal(filter);
      expect(error.code).toBe('MR_INVALID_QUERY');
      expect(error.message).toContain(`more than ${MAX_QUERY_NODES}`);
      expect(error.details![0].path).toBe('query.tags.$in');
    });

    it('counts keys spread over $or branches toward the size limit', () => {
      const filter = { $or: Array.from({ length: 600 }, () => ({ niceName: 'a', employees: 1 })) };
      expect(refusal(filter).message).toContain(`more than ${MAX_QUERY_NODES}`);
    });

    it('uses the maxRegexLength of the rules', () => {
      const strict: SearchRules = { ...rules, search: { ...DEFAULT_SEARCH_OPTIONS, maxRegexLength: 3 } };
      expect(() => sanitizeFilter({ niceName: { $regex: 'abc' } }, strict)).not.toThrow();
      expect(refusal({ niceName: { $regex: 'abcd' } }, strict).message).toContain('longer than 3');
    });

    it('prefixes detail paths with the given root path', () => {
      expect(refusal({ nope: 1 }, rules, 'filter').details![0].path).toBe('filter.nope');
      expect(refusal('x', rules, 'filter').details![0].path).toBe('filter');
    });
  });

  describe('sanitizeFilter: enum values', () => {
    const enumRules: SearchRules = {
      fields: createFieldRules(new MongooseSchema({ plan: { type: String, enum: ['free', 'pro'] }, level: { type: Number, enum: [1, 2] } })),
      search: DEFAULT_SEARCH_OPTIONS,
    };

    it.each([{ plan: 'free' }, { plan: { $in: ['free', 'pro'] } }, { level: 2 }, { level: { $ne: '1' } }, { plan: { $regex: '^f' } }, { plan: null }])(
      'accepts %j',
      (filter) => {
        expect(sanitizeFilter(filter, enumRules)).toBe(filter);
      },
    );

    it.each([
      [{ plan: 'gold' }, 'query.plan'],
      [{ plan: { $eq: 'gold' } }, 'query.plan.$eq'],
      [{ plan: { $nin: ['free', 'gold'] } }, 'query.plan.$nin.1'],
      [{ plan: { $all: ['gold'] } }, 'query.plan.$all.0'],
      [{ plan: { $not: { $eq: 'gold' } } }, 'query.plan.$not.$eq'],
      [{ plan: { $not: { $in: ['gold'] } } }, 'query.plan.$not.$in.0'],
      [{ plan: { $gt: 'gold' } }, 'query.plan.$gt'],
      [{ plan: { $elemMatch: { $eq: 'gold' } } }, 'query.plan.$elemMatch.$eq'],
      [{ level: 3 }, 'query.level'],
      [{ $and: [{ plan: 'free' }, { $or: [{ plan: 'x' }] }] }, 'query.$and.1.$or.0.plan'],
    ])('refuses %j with MR_INVALID_VALUE', (filter, path) => {
      try {
        sanitizeFilter(filter, enumRules);
        throw new Error('expected a refusal');
      } catch (error) {
        expect(error).toBeInstanceOf(ModelRoutesException);
        expect((error as ModelRoutesException).code).toBe('MR_INVALID_VALUE');
        expect((error as ModelRoutesException).details![0].path).toBe(path);
      }
    });
  });
}
