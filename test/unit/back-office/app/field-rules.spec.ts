import { filterOf, flatten, listColumns } from '../../../../src/back-office/app/field-rules.js';
import type { FieldMetadata, ResourceMetadata } from '../../../../src/back-office/app/metadata.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldRulesSpec(): void {
  const f = (path: string, type: FieldMetadata['type'], extra: Partial<FieldMetadata> = {}): FieldMetadata => ({ path, type, ...extra });

  function resource(fields: FieldMetadata[], labelField = 'niceName'): ResourceMetadata {
    return { name: 'Company', path: 'company', plural: 'companies', idField: '_id', labelField, requireIfMatch: false, routes: ['search'], fields, referencedBy: [] };
  }

  describe('field rules of the back office app: reading the metadata', () => {
    it('flattens nested objects in order, each object before its fields', () => {
      const fields = [f('a', 'string'), f('address', 'object', { fields: [f('address.city', 'string'), f('address.geo', 'object', { fields: [f('address.geo.lat', 'number')] })] }), f('z', 'number')];
      expect(flatten(fields).map((field) => field.path)).toEqual(['a', 'address', 'address.city', 'address.geo', 'address.geo.lat', 'z']);
      expect(flatten([f('empty', 'object')]).map((field) => field.path)).toEqual(['empty']);
    });

    it("lists the label field first, then the first scalar fields, up to six; never _id, a write-only field or a nested, array, file or JSON field", () => {
      const fields = [
        f('_id', 'objectId', { readOnly: true }),
        f('secret', 'string', { writeOnly: true }),
        f('employees', 'number'),
        f('niceName', 'string'),
        f('tags', 'array', { items: 'string' }),
        f('logo', 'file'),
        f('data', 'json'),
        f('members', 'references', { target: 'User' }),
        f('address', 'object', { fields: [f('address.city', 'string')] }),
        f('owner', 'reference', { target: 'User' }),
        f('active', 'boolean'),
        f('founded', 'date'),
        f('parent', 'objectId'),
        f('extra', 'string'),
      ];
      expect(listColumns(resource(fields)).map((field) => field.path)).toEqual(['niceName', 'employees', 'owner', 'active', 'founded', 'parent']);
      expect(listColumns(resource(fields, 'address.city')).map((field) => field.path)).toEqual(['employees', 'niceName', 'owner', 'active', 'founded', 'parent']);
    });

    it("makes the list's search from the page's parameters: a fragment for text, a range for numbers and dates, a value for enums, booleans and references", () => {
      const columns = [f('niceName', 'string'), f('kind', 'string', { enum: ['a', 'b'] }), f('employees', 'number'), f('founded', 'date'), f('active', 'boolean'), f('owner', 'reference', { target: 'User' })];
      const params = new URLSearchParams({ niceName: 'ac.me', kind: 'a', 'employees.min': '10', 'founded.max': '2024-12-31', active: 'true', owner: '65f0c0ffee', unrelated: 'x' });
      expect(filterOf(columns, params)).toEqual({
        niceName: { $regex: 'ac\\.me', $options: 'i' },
        kind: 'a',
        employees: { $gte: 10 },
        founded: { $lte: '2024-12-31T23:59:59.999Z' },
        active: 'true',
        owner: '65f0c0ffee',
      });
      expect(filterOf(columns, new URLSearchParams({ 'employees.min': '1', 'employees.max': '5', 'founded.min': '2020-01-01', niceName: '' }))).toEqual({ employees: { $gte: 1, $lte: 5 }, founded: { $gte: '2020-01-01' } });
      expect(filterOf(columns, new URLSearchParams())).toEqual({});
    });
  });
}
