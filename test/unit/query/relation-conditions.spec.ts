import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Schema as MongooseSchema, Types } from 'mongoose';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { sanitizeFilter } from '../../../src/query/filter.sanitizer.js';
import { DEFAULT_SEARCH_OPTIONS } from '../../../src/query/search-defaults.js';
import type { RelationRules, SearchRules } from '../../../src/query/search-params.interface.js';
import { parseSearchBody, parseSearchQueryString } from '../../../src/query/search-params.parser.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function relationConditionsSpec(): void {
  /** Issue 25, items 2 and 4: conditions across references, checked under the referenced model's rules. */
  @Schema()
  class Club {
    @Prop({ required: true }) name!: string;
    @Prop({ select: false }) vault?: string;
  }

  @Schema()
  class Member {
    @Prop({ required: true }) niceName!: string;
    @Prop() birth?: Date;
    @Prop({ enum: ['free', 'pro'] }) plan?: string;
    @Prop({ select: false }) password?: string;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Club' }) club?: Types.ObjectId;
  }

  @Schema()
  class Firm {
    @Prop({ required: true }) name!: string;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Member' }) owner?: Types.ObjectId;
    @Prop({ type: MongooseSchema.Types.ObjectId, ref: 'Member' }) lead?: Types.ObjectId;
    @Prop({ type: [{ type: MongooseSchema.Types.ObjectId, ref: 'Member' }] }) members?: Types.ObjectId[];
    @Prop({ type: [{ name: String, owner: { type: MongooseSchema.Types.ObjectId, ref: 'Member' } }] }) branches?: Array<{ name?: string }>;
  }

  const fieldsOf = (type: new () => unknown) => createFieldRules(SchemaFactory.createForClass(type));
  const relation = (field: string, target: SearchRules, options: Partial<RelationRules> = {}): RelationRules => ({
    field,
    isArray: false,
    expand: false,
    filter: true,
    targetName: 'Member',
    target,
    ...options,
  });
  const withRelations = (rules: SearchRules, relations: RelationRules[]): SearchRules => ({
    ...rules,
    relation: (field) => relations.find((candidate) => candidate.field === field),
  });

  const club: SearchRules = { fields: fieldsOf(Club), search: DEFAULT_SEARCH_OPTIONS };
  // Members as reached from a firm: one hop left, to their club.
  const member: SearchRules = withRelations({ fields: fieldsOf(Member), search: { ...DEFAULT_SEARCH_OPTIONS, maxRegexLength: 8 } }, [
    relation('club', club, { targetName: 'Club' }),
  ]);
  const firm: SearchRules = withRelations({ fields: fieldsOf(Firm), search: DEFAULT_SEARCH_OPTIONS }, [
    relation('owner', member),
    relation('members', member, { isArray: true }),
    relation('lead', member, { filter: false, expand: true }),
  ]);

  function refusal(run: () => unknown): ModelRoutesException {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ModelRoutesException);
      return error as ModelRoutesException;
    }
    throw new Error('expected the input to be refused');
  }
  const answer = (error: ModelRoutesException) => ({ code: error.code, message: error.message, path: error.details?.[0].path });

  describe('accepted conditions across references', () => {
    it.each<[string, Record<string, unknown>]>([
      ['a field of the referenced document', { 'owner.niceName': 'Ada' }],
      ['a $regex on it', { 'owner.niceName': { $regex: '^a', $options: 'i' } }],
      ['a range on a date', { 'owner.birth': { $lt: '1990-01-01' } }],
      ['an enum value', { 'owner.plan': 'pro' }],
      ['some element of an array of references', { 'members.niceName': 'Ada' }],
      ['two hops', { 'owner.club.name': 'Chess' }],
      ['$some, $none and $every', { members: { $some: { niceName: 'Ada' }, $none: { plan: 'free' }, $every: { birth: { $exists: true } } } }],
      ['$some on a single reference', { owner: { $some: { niceName: 'Ada', plan: 'pro' } } }],
      ['$some across two hops', { owner: { $some: { club: { $some: { name: 'Chess' } } } } }],
      ['inside $or and $and, beside ordinary conditions', { name: 'x', $or: [{ 'owner.niceName': 'Ada' }, { $and: [{ 'members.plan': 'pro' }] }] }],
      ['the reference itself, as before', { owner: '64b7f0c2a1b2c3d4e5f60718', members: { $size: 2 } }],
    ])('%s', (_label, filter) => {
      expect(sanitizeFilter(filter, firm)).toBe(filter);
    });
  });

  describe('refused conditions across references', () => {
    it.each<[string, Record<string, unknown>, { code: string; message: string | RegExp; path: string }]>([
      [
        'a hidden field of the target, as an unknown one',
        { 'owner.password': 'x' },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'owner.password'", path: 'query.owner.password' },
      ],
      ['a field the target lacks, alike', { 'owner.nope': 'x' }, { code: 'MR_INVALID_QUERY', message: "Unknown field 'owner.nope'", path: 'query.owner.nope' }],
      [
        'a hidden field two hops away',
        { 'owner.club.vault': { $regex: '^a' } },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'owner.club.vault'", path: 'query.owner.club.vault' },
      ],
      [
        'a hidden field in $some',
        { members: { $some: { password: 'x' } } },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'password'", path: 'query.members.$some.password' },
      ],
      [
        'a reference not declared filter: true',
        { 'lead.niceName': 'Ada' },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'lead.niceName'", path: 'query.lead.niceName' },
      ],
      [
        '$some on it',
        { lead: { $some: { niceName: 'Ada' } } },
        { code: 'MR_INVALID_QUERY', message: 'Operator $some is not allowed', path: 'query.lead.$some' },
      ],
      [
        'a third hop (beyond the depth)',
        { 'owner.club.owner.name': 'x' },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'owner.club.owner.name'", path: 'query.owner.club.owner.name' },
      ],
      [
        'a reference inside sub-documents',
        { 'branches.owner.niceName': 'x' },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'branches.owner.niceName'", path: 'query.branches.owner.niceName' },
      ],
      [
        'a position in an array of references',
        { 'members.0.niceName': 'x' },
        { code: 'MR_INVALID_QUERY', message: "Unknown field 'members.0.niceName'", path: 'query.members.0.niceName' },
      ],
      [
        "the target's regex bound",
        { 'owner.niceName': { $regex: '^abcdefghij' } },
        { code: 'MR_INVALID_QUERY', message: '$regex is longer than 8 characters', path: 'query.owner.niceName.$regex' },
      ],
      [
        "the target's enums",
        { 'owner.plan': 'gold' },
        { code: 'MR_INVALID_VALUE', message: /^'gold' is not one of the values of 'plan'/, path: 'query.owner.plan' },
      ],
      [
        'an operator outside the allowlist',
        { 'owner.niceName': { $where: 'x' } },
        { code: 'MR_INVALID_QUERY', message: 'Operator $where is not allowed', path: 'query.owner.niceName.$where' },
      ],
      [
        'inside $elemMatch',
        { members: { $elemMatch: { niceName: 'Ada' } } },
        { code: 'MR_INVALID_QUERY', message: /cannot go inside \$elemMatch; write \{ "members": \{ "\$some"/, path: 'query.members.$elemMatch.niceName' },
      ],
      [
        '$some mixed with other conditions',
        { members: { $some: { niceName: 'Ada' }, $size: 2 } },
        { code: 'MR_INVALID_QUERY', message: /cannot be mixed with other conditions on 'members'/, path: 'query.members.$size' },
      ],
      [
        '$some of something else than a filter',
        { members: { $some: 'Ada' } },
        { code: 'MR_INVALID_QUERY', message: "$some takes a filter on the documents 'members' names", path: 'query.members.$some' },
      ],
      [
        '$some under $not',
        { members: { $not: { $some: { niceName: 'Ada' } } } },
        { code: 'MR_INVALID_QUERY', message: 'Operator $some is not allowed', path: 'query.members.$not.$some' },
      ],
    ])('%s', (_label, filter, expected) => {
      const error = refusal(() => sanitizeFilter(filter, firm));
      expect(answer(error)).toEqual({
        code: expected.code,
        message: expect.stringMatching(typeof expected.message === 'string' ? `^${escape(expected.message)}$` : expected.message),
        path: expected.path,
      });
    });

    it("counts the nodes of the filters on referenced documents in the search's own bound", () => {
      const rules = { ...firm, search: { ...DEFAULT_SEARCH_OPTIONS, maxQueryNodes: 10 } };
      const many = Array.from({ length: 11 }, () => ({ niceName: 'Ada' }));
      expect(refusal(() => sanitizeFilter({ members: { $some: { $or: many } } }, rules)).message).toBe('The query has more than 10 keys and items');
    });

    it('refuses without rules that let a search cross references, as before', () => {
      expect(refusal(() => sanitizeFilter({ 'owner.niceName': 'Ada' }, { fields: firm.fields, search: firm.search })).message).toBe(
        "Unknown field 'owner.niceName'",
      );
    });
  });

  describe('the GET form and sort', () => {
    it('carries field conditions: owner.niceName[regex]=^a, members.niceName=Ada', () => {
      expect(parseSearchQueryString({ 'owner.niceName[regex]': '^a', 'owner.niceName[options]': 'i', 'members.niceName': 'Ada' }, firm).filter).toEqual({
        'owner.niceName': { $regex: '^a', $options: 'i' },
        'members.niceName': 'Ada',
      });
    });

    it.each(['some', 'none', 'every'])('refuses members[%s] with a pointer to the POST search', (quantifier) => {
      const error = refusal(() => parseSearchQueryString({ [`members[${quantifier}]`]: 'x' }, firm));
      expect(answer(error)).toEqual({
        code: 'MR_INVALID_QUERY',
        message: expect.stringContaining(`members[${quantifier}] is not available in a query string`),
        path: `query.members.$${quantifier}`,
      });
    });

    it.each([
      ['a string', 'owner.niceName', 'sort.owner.niceName'],
      ['an object', { 'members.birth': -1 }, 'sort.members.birth'],
      ['a hidden field of the target, alike', 'owner.password', 'sort.owner.password'],
      ['a reference declared expand only', 'lead.niceName', 'sort.lead.niceName'],
    ])('refuses to sort by a referenced field given as %s', (_label, sort, path) => {
      const error = refusal(() => parseSearchBody({ sort }, firm));
      expect(answer(error)).toEqual({
        code: 'MR_INVALID_QUERY',
        message: `Sorting by a referenced field ('${path.slice('sort.'.length)}') is not supported`,
        path,
      });
    });
  });

  function escape(text: string): string {
    return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
}
