import { filterOf, filterParams, flatten, isDeletionMark, listColumns, listFilters, trashColumns } from '../../../../src/back-office/app/field-rules.js';
import type { FieldMetadata, ResourceMetadata } from '../../../../src/back-office/app/metadata.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fieldRulesSpec(): void {
  const f = (path: string, type: FieldMetadata['type'], extra: Partial<FieldMetadata> = {}): FieldMetadata => ({ path, type, ...extra });

  function resource(fields: FieldMetadata[], labelField = 'niceName', name = 'Company'): ResourceMetadata {
    return {
      name,
      path: name.toLowerCase(),
      plural: `${name.toLowerCase()}s`,
      idField: '_id',
      labelField,
      requireIfMatch: false,
      routes: ['search'],
      fields,
      referencedBy: [],
    };
  }

  describe('field rules of the back office app: reading the metadata', () => {
    it('flattens nested objects in order, each object before its fields', () => {
      const fields = [
        f('a', 'string'),
        f('address', 'object', { fields: [f('address.city', 'string'), f('address.geo', 'object', { fields: [f('address.geo.lat', 'number')] })] }),
        f('z', 'number'),
      ];
      expect(flatten(fields).map((field) => field.path)).toEqual(['a', 'address', 'address.city', 'address.geo', 'address.geo.lat', 'z']);
      expect(flatten([f('empty', 'object')]).map((field) => field.path)).toEqual(['empty']);
    });

    it('lists the label field first, then the first scalar fields, up to six; never _id, a write-only field or a nested, array, file or JSON field', () => {
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
      expect(listColumns(resource(fields, 'address.city')).map((field) => field.path)).toEqual([
        'employees',
        'niceName',
        'owner',
        'active',
        'founded',
        'parent',
      ]);
    });

    it("with soft delete, leaves the mark out of the list's columns (and so of its filters), and shows it last in the trash's", () => {
      const fields = [f('_id', 'objectId', { readOnly: true }), f('niceName', 'string'), f('deletedAt', 'date', { readOnly: true }), f('employees', 'number')];
      const soft = { ...resource(fields), softDelete: { field: 'deletedAt' } };
      expect(listColumns(soft).map((field) => field.path)).toEqual(['niceName', 'employees']);
      expect(listFilters(soft, listColumns(soft), () => undefined).map(({ field }) => field.path)).toEqual(['niceName', 'employees']);
      expect(trashColumns(soft).map((field) => field.path)).toEqual(['niceName', 'employees', 'deletedAt']);
      // Past six columns, the mark still shows in the trash: it is what the trash is sorted by.
      const many = { ...soft, fields: [...fields, ...['a', 'b', 'c', 'd', 'e', 'f'].map((path) => f(path, 'string'))] };
      expect(trashColumns(many).map((field) => field.path)).toEqual(['niceName', 'employees', 'a', 'b', 'c', 'd', 'deletedAt']);
      // Another field named by the option; without soft delete, a field called deletedAt is an ordinary one.
      const renamed = { ...resource([f('niceName', 'string'), f('removedOn', 'date', { readOnly: true })]), softDelete: { field: 'removedOn' } };
      expect(trashColumns(renamed).map((field) => field.path)).toEqual(['niceName', 'removedOn']);
      expect(listColumns(resource(fields)).map((field) => field.path)).toEqual(['niceName', 'deletedAt', 'employees']);
      expect(trashColumns(resource(fields)).map((field) => field.path)).toEqual(['niceName', 'deletedAt', 'employees']);
      expect(isDeletionMark(soft, f('deletedAt', 'date'))).toBe(true);
      expect(isDeletionMark(resource(fields), f('deletedAt', 'date'))).toBe(false);
    });

    it(
      "makes the list's search from the page's parameters: a fragment for text, a range for numbers and dates, a value for enums, booleans and " + 'references',
      () => {
        const columns = [
          f('niceName', 'string'),
          f('kind', 'string', { enum: ['a', 'b'] }),
          f('employees', 'number'),
          f('founded', 'date'),
          f('active', 'boolean'),
          f('owner', 'reference', { target: 'User' }),
        ];
        const params = new URLSearchParams({
          niceName: 'ac.me',
          kind: 'a',
          'employees.min': '10',
          'founded.max': '2024-12-31',
          active: 'true',
          owner: '65f0c0ffee',
          unrelated: 'x',
        });
        expect(filterOf(columns, params)).toEqual({
          niceName: { $regex: 'ac\\.me', $options: 'i' },
          kind: 'a',
          employees: { $gte: 10 },
          founded: { $lte: '2024-12-31T23:59:59.999Z' },
          active: 'true',
          owner: '65f0c0ffee',
        });
        expect(filterOf(columns, new URLSearchParams({ 'employees.min': '1', 'employees.max': '5', 'founded.min': '2020-01-01', niceName: '' }))).toEqual({
          employees: { $gte: 1, $lte: 5 },
          founded: { $gte: '2020-01-01' },
        });
        expect(filterOf(columns, new URLSearchParams())).toEqual({});
      },
    );

    describe('filters across references', () => {
      const user = resource(
        [
          f('_id', 'objectId', { readOnly: true }),
          f('niceName', 'string', { required: true }),
          f('birth', 'date'),
          f('role', 'string', { enum: ['admin', 'member'] }),
          f('active', 'boolean'),
          f('team', 'reference', { target: 'Team' }),
          f('score', 'number'),
        ],
        'niceName',
        'User',
      );
      const named = (name: string) => (name === 'User' ? user : undefined);

      it(
        "offers, after the list's own filters, one per field of a filterable reference's target that its own list filters on and the metadata allows, at " +
          'the dotted path',
        () => {
          const owner = f('owner', 'reference', { target: 'User', filterable: true, filterFields: ['niceName', 'birth', 'role', 'active'] });
          const company = resource([f('niceName', 'string'), owner, f('employees', 'number')]);
          const filters = listFilters(company, listColumns(company), named);
          expect(filters.map(({ field, label }) => [field.path, field.type, label])).toEqual([
            ['niceName', 'string', 'Nice name'],
            ['owner', 'reference', 'Owner'],
            ['employees', 'number', 'Employees'],
            // `score` is a column of the user list, but the metadata does not allow it; `team` is a reference (no second hop).
            ['owner.niceName', 'string', 'Nice name of owner'],
            ['owner.birth', 'date', 'Birth of owner'],
            ['owner.role', 'string', 'Role of owner'],
            ['owner.active', 'boolean', 'Active of owner'],
          ]);
          expect(filters.find(({ field }) => field.path === 'owner.role')?.field.enum).toEqual(['admin', 'member']);
        },
      );

      it('offers none for a reference not declared filterable, or whose target the page does not know', () => {
        const company = resource([
          f('niceName', 'string'),
          f('owner', 'reference', { target: 'User', filterFields: ['niceName'] }),
          f('lead', 'reference', { target: 'Gone', filterable: true, filterFields: ['niceName'] }),
        ]);
        expect(listFilters(company, listColumns(company), named).map(({ field }) => field.path)).toEqual(['niceName', 'owner', 'lead']);
      });

      it('offers them for an array of references too (a condition on some element), though it is no column', () => {
        const team = resource(
          [f('name', 'string', { required: true }), f('members', 'references', { target: 'User', filterable: true, filterFields: ['niceName'] })],
          'name',
          'Team',
        );
        expect(listFilters(team, listColumns(team), named).map(({ field, label }) => [field.path, label])).toEqual([
          ['name', 'Name'],
          ['members.niceName', 'Nice name of members'],
        ]);
      });

      it("makes them conditions on the dotted paths, from the page's parameters of the same names (what a reload reads again)", () => {
        const owner = f('owner', 'reference', { target: 'User', filterable: true, filterFields: ['niceName', 'birth', 'role', 'active'] });
        const company = resource([f('niceName', 'string'), owner]);
        const fields = listFilters(company, listColumns(company), named).map(({ field }) => field);
        const params = new URLSearchParams({
          'owner.niceName': 'ad.a',
          'owner.birth.max': '1989-12-31',
          'owner.role': 'admin',
          'owner.active': 'true',
          niceName: 'acme',
        });
        expect(filterOf(fields, params)).toEqual({
          niceName: { $regex: 'acme', $options: 'i' },
          'owner.niceName': { $regex: 'ad\\.a', $options: 'i' },
          'owner.birth': { $lte: '1989-12-31T23:59:59.999Z' },
          'owner.role': 'admin',
          'owner.active': 'true',
        });
        expect(fields.flatMap(filterParams)).toEqual([
          'niceName',
          'owner',
          'owner.niceName',
          'owner.birth.min',
          'owner.birth.max',
          'owner.role',
          'owner.active',
        ]);
      });
    });
  });
}
