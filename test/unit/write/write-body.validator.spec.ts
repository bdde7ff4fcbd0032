import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { checkWriteBody, MAX_ID_LENGTH, type WriteRules } from '../../../src/write/write-body.validator.js';
import { Article } from '../../fixtures/blog-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function writeBodyValidatorSpec(): void {
  @Schema({ timestamps: true })
  class WritableAccount {
    @Prop({ required: true, unique: true }) email!: string;
    @Prop({ select: false }) passwordHash?: string;
    @Prop({ min: 0 }) credits?: number;
    @Prop(raw({ city: { type: String }, zip: { type: String } })) address?: Record<string, string>;
    @Prop({ type: MongooseSchema.Types.Mixed }) meta?: unknown;
    @Prop([String]) tags?: string[];
  }

  const fields = createFieldRules(SchemaFactory.createForClass(WritableAccount));
  const rules = { fields, idField: 'email' };

  // Article: `lines` are sub-documents with a hidden `pin`, `meta` a nested object with a hidden `token`.
  const articleSchema = SchemaFactory.createForClass(Article);
  const articleRules = { fields: createFieldRules(articleSchema) };
  const writeOnlyRules = { fields: createFieldRules(articleSchema, { writeOnly: ['subtitle', 'lines.pin'] }) };

  function refusal(body: unknown): ModelRoutesException {
    try {
      checkWriteBody(body, rules);
    } catch (error) {
      expect(error).toBeInstanceOf(ModelRoutesException);
      return error as ModelRoutesException;
    }
    throw new Error(`expected ${JSON.stringify(body)} to be refused`);
  }

  /** `{ meta: { a: { a: ... } } }`, `levels` objects deep below meta. */
  function deep(levels: number): Record<string, unknown> {
    let value: unknown = 1;
    for (let i = 0; i < levels; i++) value = { a: value };
    return { meta: value };
  }

  describe('checkWriteBody: accepted bodies', () => {
    it.each<[string, Record<string, unknown>]>([
      ['empty', {}],
      ['scalar fields', { email: 'a@b.c', credits: 3 }],
      ['a nested object', { address: { city: 'Paris', zip: '75001' } }],
      ['a Mixed value with arrays and objects', { meta: { a: [{ b: 1 }, 'x', null], c: { d: true } } }],
      ['an array', { tags: ['a', 'b'] }],
      ['null values', { credits: null, meta: null }],
      ['keys containing $ and . only in values', { meta: { note: '$set a.b' } }],
      ['keys with $ not at the start', { meta: { price$: 1 } }],
    ])('%s', (_label, body) => {
      expect(checkWriteBody(body, rules)).toEqual(body);
    });

    it('accepts values 32 levels below the body, not 33', () => {
      expect(() => checkWriteBody(deep(31), rules)).not.toThrow();
      expect(refusal(deep(32)).message).toContain('nested too deeply');
    });

    it('works with plain sets as rules', () => {
      const body = { a: 1 };
      const plain = {
        writable: new Set(['a']),
        protected: new Set(['_id']),
        hidden: new Set<string>(),
        openPrefixes: [],
        objects: new Set<string>(),
        documentArrays: new Set<string>(),
      };
      expect(checkWriteBody(body, { fields: plain })).toEqual(body);
    });
  });

  describe('checkWriteBody: refused bodies', () => {
    it.each<[string, unknown, string, string]>([
      ['null', null, 'body', 'JSON object'],
      ['undefined', undefined, 'body', 'JSON object'],
      ['an array', [{ email: 'a' }], 'body', 'JSON object'],
      ['a string', 'email=a', 'body', 'JSON object'],
      ['a number', 5, 'body', 'JSON object'],
      ['a Date', new Date(), 'body', 'JSON object'],
      ['_id', { _id: '64b7f0c2a1b2c3d4e5f60718', email: 'a' }, '_id', 'cannot be written'],
      ['__v', { __v: 3 }, '__v', 'cannot be written'],
      ['createdAt', { createdAt: '2024-01-01' }, 'createdAt', 'cannot be written'],
      ['updatedAt', { updatedAt: '2024-01-01' }, 'updatedAt', 'cannot be written'],
      ['an unknown field', { email: 'a', nope: 1 }, 'nope', 'Unknown field'],
      ['a hidden field, as if unknown', { passwordHash: 'attacker-chosen' }, 'passwordHash', "Unknown field 'passwordHash'"],
      ['a _bsontype key', { meta: { _bsontype: 'ObjectId' } }, 'meta._bsontype', 'not allowed'],
      ['a _bsontype key in an array', { tags: [{ _bsontype: 'ObjectId' }] }, 'tags.0._bsontype', 'not allowed'],
      ['arrays nested 5000 deep', { email: JSON.parse(`${'['.repeat(5000)}${']'.repeat(5000)}`) }, `email${'.0'.repeat(32)}`, 'nested too deeply'],
      ['a $set key', { $set: { email: 'a' } }, '$set', 'not allowed'],
      ['a dotted key', { 'address.city': 'Paris' }, 'address.city', 'not allowed'],
      ['a top-level __proto__ key', JSON.parse('{"__proto__": {"email": "a"}}'), '__proto__', 'not allowed'],
      ['a top-level constructor key', { constructor: 'x' }, 'constructor', 'not allowed'],
      ['a nested $where key', { meta: { $where: 'x' } }, 'meta.$where', 'not allowed'],
      ['a nested $set key', { address: { $set: { city: 'x' } } }, 'address.$set', 'not allowed'],
      ['a nested dotted key', { meta: { 'a.b': 1 } }, 'meta.a.b', 'not allowed'],
      ['a nested __proto__ key', { meta: JSON.parse('{"__proto__": {"polluted": true}}') }, 'meta.__proto__', 'not allowed'],
      ['a deep __proto__ key', { meta: { a: { b: JSON.parse('{"__proto__": 1}') } } }, 'meta.a.b.__proto__', 'not allowed'],
      ['a constructor key inside an array', { tags: [{ constructor: 1 }] }, 'tags.0.constructor', 'not allowed'],
      ['a prototype key inside an array of arrays', { meta: [[{ prototype: 1 }]] }, 'meta.0.0.prototype', 'not allowed'],
      ['too deep nesting', deep(40), 'meta.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a', 'nested too deeply'],
    ])('%s', (_label, body, path, message) => {
      const error = refusal(body);
      expect(error.code).toBe('MR_INVALID_BODY');
      expect(error.getStatus()).toBe(400);
      expect(error.details).toEqual([{ path, message: error.message }]);
      expect(error.message).toContain(message);
    });

    it('reports a protected field before an unknown one', () => {
      expect(refusal({ _id: 'x', nope: 1 }).details![0].path).toBe('_id');
    });
  });

  describe('checkWriteBody: values refused by their field', () => {
    function validationFailure(body: unknown, using: WriteRules = rules): ModelRoutesException {
      try {
        checkWriteBody(body, using);
      } catch (error) {
        expect(error).toBeInstanceOf(ModelRoutesException);
        expect((error as ModelRoutesException).code).toBe('MR_VALIDATION_FAILED');
        return error as ModelRoutesException;
      }
      throw new Error(`expected ${JSON.stringify(body)} to be refused`);
    }

    it.each<[string, unknown, string]>([
      ['a nested object sent a boolean (property-suite counterexample)', { address: true }, 'address'],
      ['a nested object sent a string', { address: 'Paris' }, 'address'],
      ['a nested object sent an array', { address: ['Paris'] }, 'address'],
    ])('%s', (_label, body, path) => {
      // Named as class-validator names a property (the trial of 2026-11-29 read a bare 'must be an object').
      expect(validationFailure(body).details).toEqual([{ path, message: 'address must be an object' }]);
    });

    it('bounds the id field, so that what is created stays addressable', () => {
      expect(() => checkWriteBody({ email: 'x'.repeat(MAX_ID_LENGTH) }, rules)).not.toThrow();
      expect(validationFailure({ email: 'x'.repeat(MAX_ID_LENGTH + 1) }).details![0].path).toBe('email');
    });

    it('checks arrays of sub-documents element by element, naming the position', () => {
      expect(validationFailure({ lines: [{ text: 'a' }, 'b'] }, writeOnlyRules).details).toEqual([{ path: 'lines.1', message: 'lines must be an object' }]);
      expect(validationFailure({ lines: 'b' }, writeOnlyRules).details).toEqual([{ path: 'lines', message: 'lines must be an array of objects' }]);
    });

    it('tells every value of the wrong shape in one error, not only the first', () => {
      const error = validationFailure({ lines: [{ text: 'a' }, 'b', 7] }, writeOnlyRules);
      expect(error.details).toEqual([
        { path: 'lines.1', message: 'lines must be an object' },
        { path: 'lines.2', message: 'lines must be an object' },
      ]);
      expect(error.message).toBe('Validation failed for lines.1, lines.2');
    });
  });

  describe('checkWriteBody: hidden, write-only and nested fields', () => {
    it('accepts a write-only field, hidden from reads', () => {
      expect(checkWriteBody({ subtitle: 's3cret' }, writeOnlyRules)).toEqual({ subtitle: 's3cret' });
    });

    it('refuses a whole array of sub-documents that hold a hidden field (replacing it would erase them)', () => {
      expect(() => checkWriteBody({ lines: [{ text: 'a' }] }, articleRules)).toThrow("Field 'lines' cannot be written");
    });

    it('refuses a hidden sub-field of a nested object as unknown, and accepts its visible ones', () => {
      expect(() => checkWriteBody({ meta: { token: 'x' } }, articleRules)).toThrow("Unknown field 'meta.token'");
      expect(checkWriteBody({ meta: { views: 1 } }, articleRules)).toEqual({ meta: { views: 1 } });
    });

    it('accepts an array whose hidden sub-field is write-only, and checks unknown keys inside its elements', () => {
      expect(checkWriteBody({ lines: [{ text: 'a', pin: '1' }] }, writeOnlyRules)).toEqual({ lines: [{ text: 'a', pin: '1' }] });
      expect(() => checkWriteBody({ lines: [{ text: 'a', nope: 3 }] }, writeOnlyRules)).toThrow("Unknown field 'lines.0.nope'");
    });

    it('makes strings well-formed: a lone surrogate becomes U+FFFD, as stored', () => {
      expect(checkWriteBody({ email: 'a\ud800b', meta: { 'k\udc00': ['\ud83d'] } }, rules)).toEqual({ email: 'a\ufffdb', meta: { 'k\ufffd': ['\ufffd'] } });
      expect(checkWriteBody({ email: 'ok \ud83d\ude00' }, rules)).toEqual({ email: 'ok \ud83d\ude00' });
    });

    it('returns a copy and leaves the body it was given as it was', () => {
      const body = { address: { city: 'Paris' } };
      const checked = checkWriteBody(body, rules);
      expect(checked).toEqual(body);
      expect(checked).not.toBe(body);
    });
  });
}
