import { fromInput, setAt, toInput } from '../../../../src/back-office/app/field-values.js';
import type { FieldMetadata } from '../../../../src/back-office/app/metadata.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldValuesSpec(): void {
  const field = (type: FieldMetadata['type'], extra: Partial<FieldMetadata> = {}): FieldMetadata => ({ path: 'value', type, ...extra });

  describe('field values of the back office app: what a control holds and what is sent', () => {
    it.each<[FieldMetadata, unknown, string]>([
      [field('string'), undefined, ''],
      [field('string'), null, ''],
      [field('string'), 'text', 'text'],
      [field('number'), 0, '0'],
      [field('date'), '2024-03-01T14:05:00.000Z', '2024-03-01'],
      [field('array', { items: 'string' }), ['a', 'b'], 'a\nb'],
      [field('array', { items: 'date' }), ['2024-03-01T00:00:00.000Z'], '2024-03-01'],
      [field('array'), 'not an array', ''],
      [field('json'), { a: [1] }, '{\n  "a": [\n    1\n  ]\n}'],
    ])('toInput(%j, %j) is %j', (metadata, value, expected) => {
      expect(toInput(metadata, value)).toBe(expected);
    });

    it.each<[FieldMetadata, string, unknown]>([
      [field('string'), ' text ', ' text '],
      [field('number'), '42.5', 42.5],
      [field('number'), 'abc', Number.NaN],
      [field('date'), '2024-03-01', '2024-03-01'],
      [field('array', { items: 'number' }), '1\n 2 \n\n3', [1, 2, 3]],
      [field('array', { items: 'boolean' }), 'true\nfalse\nyes', [true, false, false]],
      [field('array', { items: 'string' }), ' a \n\nb', ['a', 'b']],
      [field('json'), '{"a": 1}', { a: 1 }],
      // Sent as its text, for the server to refuse by the field's name.
      [field('json'), '{not json', '{not json'],
    ])('fromInput(%j, %j) sends %j', (metadata, text, expected) => {
      expect(fromInput(metadata, text)).toEqual(expected);
    });

    it('round-trips what it shows', () => {
      const tags = field('array', { items: 'string' });
      expect(fromInput(tags, toInput(tags, ['x', 'y']))).toEqual(['x', 'y']);
      const data = field('json');
      expect(fromInput(data, toInput(data, { nested: { list: [1, null] } }))).toEqual({ nested: { list: [1, null] } });
    });

    it('builds a body from dotted paths, keeping what is there', () => {
      const body: Record<string, unknown> = {};
      setAt(body, 'niceName', 'Acme');
      setAt(body, 'address.city', 'Paris');
      setAt(body, 'address.zip', null);
      setAt(body, 'a.b.c', 1);
      expect(body).toEqual({ niceName: 'Acme', address: { city: 'Paris', zip: null }, a: { b: { c: 1 } } });
    });
  });
}
