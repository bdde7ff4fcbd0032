import { Prop, Schema, SchemaFactory, raw } from '@nestjs/mongoose';
import { Schema as MongooseSchema } from 'mongoose';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';
import { createFieldRules } from '../../../src/factories/field-rules.factory.js';
import { assertWritableBody } from '../../../src/query/write-body.validator.js';

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

function refusal(body: unknown): ModelRoutesException {
  try {
    assertWritableBody(body, fields);
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

describe('assertWritableBody: accepted bodies', () => {
  it.each<[string, Record<string, unknown>]>([
    ['empty', {}],
    ['scalar fields', { email: 'a@b.c', credits: 3 }],
    ['a hidden field (write-only)', { passwordHash: 'hash' }],
    ['a nested object', { address: { city: 'Paris', zip: '75001' } }],
    ['a Mixed value with arrays and objects', { meta: { a: [{ b: 1 }, 'x', null], c: { d: true } } }],
    ['an array', { tags: ['a', 'b'] }],
    ['null values', { credits: null, meta: null }],
    ['keys containing $ and . only in values', { meta: { note: '$set a.b' } }],
    ['keys with $ not at the start', { meta: { price$: 1 } }],
  ])('%s', (_label, body) => {
    expect(assertWritableBody(body, fields)).toBe(body);
  });

  it('accepts values 32 levels below the body, not 33', () => {
    expect(() => assertWritableBody(deep(31), fields)).not.toThrow();
    expect(refusal(deep(32)).message).toContain('nested too deeply');
  });

  it('works with plain sets as rules', () => {
    const body = { a: 1 };
    expect(assertWritableBody(body, { writable: new Set(['a']), protected: new Set(['_id']), openPrefixes: [] })).toBe(body);
  });
});

describe('assertWritableBody: refused bodies', () => {
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
    expect(error.status).toBe(400);
    expect(error.details).toEqual([{ path, message: error.message }]);
    expect(error.message).toContain(message);
  });

  it('reports a protected field before an unknown one', () => {
    expect(refusal({ _id: 'x', nope: 1 }).details![0].path).toBe('_id');
  });
});
