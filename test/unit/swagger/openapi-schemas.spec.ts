import { Prop, Schema } from '@nestjs/mongoose';
import { Expose, Transform } from 'class-transformer';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { documentSchema } from '../../../src/swagger/openapi-schemas.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function openapiSchemasSpec(): void {
  @GeneratedResource()
  @Schema()
  class Payslip {
    @Prop({ required: true }) employee!: string;
    @Expose({ groups: ['hr'] }) @Prop({ required: true }) amount!: number;
    @Expose({ groups: ['hr', 'finance'] }) @Prop() code?: string;
    @Transform(({ value }) => (typeof value === 'number' ? `${value} EUR` : value)) @Prop({ required: true }) bonus!: number;
  }

  describe('documentSchema: class-transformer', () => {
    const definition = createResourceDefinition({ resource: Payslip });

    it('does not require a field shown to some groups only, in responses (absent for the others) nor in request bodies (refused from the others)', () => {
      expect(documentSchema(definition, 'read').required).toEqual(['employee', 'bonus', '_id']);
      expect(documentSchema(definition, 'create').required).toEqual(['employee', 'bonus']);
    });

    it('says in the description which groups see a group-only field', () => {
      const read = documentSchema(definition, 'read').properties as Record<string, Record<string, unknown>>;
      expect(read.amount).toEqual({ type: 'number', description: 'Visible to groups: hr' });
      expect(read.code).toMatchObject({ type: 'string', description: 'Visible to groups: finance, hr' });
      expect(read.employee.description).toBeUndefined();
    });

    it(
      'says in the description of a request body which groups may write a group-only field, and that it is required of them when the schema ' + 'requires it',
      () => {
        for (const mode of ['create', 'update'] as const) {
          const body = documentSchema(definition, mode).properties as Record<string, Record<string, unknown>>;
          // An update requires nothing.
          const required = mode === 'create' ? ' (required of them)' : '';
          expect(body.amount).toEqual({
            type: 'number',
            description: `Writable by groups: hr${required}; in the body of another request, refused as an unknown field (400 MR_INVALID_BODY)`,
          });
          expect(body.code).toMatchObject({
            type: 'string',
            description: 'Writable by groups: finance, hr; in the body of another request, refused as an unknown field (400 MR_INVALID_BODY)',
          });
          expect(body.employee.description).toBeUndefined();
        }
      },
    );

    it('describes, without a type, the response value of a transformed field; requests keep its type', () => {
      const read = documentSchema(definition, 'read').properties as Record<string, Record<string, unknown>>;
      expect(read.bonus).toEqual({ description: 'The value a @Transform() of the class gives' });
      expect((documentSchema(definition, 'create').properties as Record<string, Record<string, unknown>>).bonus).toMatchObject({ type: 'number' });
    });
  });
}
