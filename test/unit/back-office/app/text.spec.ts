import type { FieldMetadata, ResourceMetadata } from '../../../../src/back-office/app/metadata.js';
import { documentLabel, fieldLabel, formatSize, formatValue, humanize, pluralName, singularName, valueAt } from '../../../../src/back-office/app/text.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function textSpec(): void {
  // The app's pure modules run here without a browser; `npm run typecheck` compiles them through
  // these specs without the DOM library, so a DOM call slipping into one of them fails the check.

  const company = { name: 'Company', path: 'company', plural: 'companies', idField: '_id', labelField: 'niceName' } as ResourceMetadata;
  const field = (type: FieldMetadata['type'], path = 'value', extra: Partial<FieldMetadata> = {}): FieldMetadata => ({ path, type, ...extra });

  describe('text helpers of the back office app', () => {
    it.each([
      ['niceName', 'Nice name'],
      ['address.city', 'City'],
      ['companies', 'Companies'],
      ['_id', 'Id'],
      ['created_at', 'Created at'],
      ['birth-date', 'Birth date'],
      ['HTTPStatus', 'Httpstatus'],
      ['photo2Url', 'Photo2 url'],
    ])('humanize(%j) is %j', (name, expected) => {
      expect(humanize(name)).toBe(expected);
    });

    it('names a resource by its plural and singular path, a field by its last segment', () => {
      expect(pluralName(company)).toBe('Companies');
      expect(singularName(company)).toBe('Company');
      expect(fieldLabel(field('string', 'address.zipCode'))).toBe('Zip code');
    });

    it('names a document by its label field, else its identifier, else nothing', () => {
      expect(documentLabel(company, { _id: 'a1', niceName: 'Acme' })).toBe('Acme');
      expect(documentLabel(company, { _id: 'a1', niceName: '' })).toBe('a1');
      expect(documentLabel(company, { _id: 'a1', niceName: null })).toBe('a1');
      expect(documentLabel(company, { niceName: 0 })).toBe('0');
      expect(documentLabel(company, {})).toBe('');
      expect(documentLabel(company, undefined)).toBe('');
      expect(documentLabel({ ...company, labelField: 'address.city' }, { address: { city: 'Paris' } })).toBe('Paris');
    });

    it('reads a dotted path, through objects only', () => {
      const document = { address: { city: 'Paris', geo: null }, tags: ['a'], count: 3 };
      expect(valueAt(document, 'address.city')).toBe('Paris');
      expect(valueAt(document, 'address.geo.lat')).toBeUndefined();
      expect(valueAt(document, 'count.value')).toBeUndefined();
      expect(valueAt(document, 'tags.0')).toBe('a');
      expect(valueAt(undefined, 'a')).toBeUndefined();
    });

    it.each<[FieldMetadata, unknown, string]>([
      [field('string'), undefined, ''],
      [field('string'), null, ''],
      [field('string'), '', ''],
      [field('string'), 'text', 'text'],
      [field('date'), '2024-03-01T00:00:00.000Z', '2024-03-01'],
      [field('date'), '2024-03-01T14:05:09.000Z', '2024-03-01 14:05 UTC'],
      [field('date'), 'not a date', 'not a date'],
      [field('boolean'), true, 'Yes'],
      [field('boolean'), false, 'No'],
      [field('number'), 1234567.5, '1,234,567.5'],
      [field('number'), '12', '12'],
      [field('references'), ['a', 'b'], 'a, b'],
      // Read with expand, references hold documents: their identifiers show.
      [field('references'), [{ _id: 'a', name: 'Ada' }, 'b'], 'a, b'],
      [field('reference'), 'a', 'a'],
      [field('reference'), { _id: 'a', name: 'Ada' }, 'a'],
      [field('array'), [1, 2], '1, 2'],
      [field('array'), 'x', 'x'],
      [field('file'), { name: 'logo.png', size: 3 }, 'logo.png'],
      [field('file'), { size: 3 }, ''],
      [field('files'), [{}], '1 file'],
      [field('files'), [{}, {}], '2 files'],
      [field('files'), 'x', ''],
      [field('object'), { a: 1 }, '{"a":1}'],
      [field('json'), [1, { b: 2 }], '[1,{"b":2}]'],
      [field('objectId'), '65f0c0ffee', '65f0c0ffee'],
    ])('formatValue(%j, %j) shows %j', (metadata, value, expected) => {
      expect(formatValue(metadata, value)).toBe(expected);
    });

    it.each([
      [0, '0 B'],
      [1023, '1023 B'],
      [1024, '1.0 KB'],
      [2048, '2.0 KB'],
      [10 * 1024, '10 KB'],
      [1536 * 1024, '1.5 MB'],
      [5 * 1024 ** 3, '5.0 GB'],
      [2048 * 1024 ** 3, '2048 GB'],
    ])('formatSize(%j) is %j', (bytes, expected) => {
      expect(formatSize(bytes)).toBe(expected);
    });
  });
}
