import { Prop, Schema } from '@nestjs/mongoose';
import { Expose } from 'class-transformer';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { checkWrite, writeRulesOf } from '../../../src/call/write-check.util.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function writeRulesSpec(): void {
  @Schema()
  class Pay {
    @Prop() band?: string;
    @Prop() bonus?: number;
  }

  @GeneratedResource()
  @Schema()
  class Staffer {
    @Prop({ required: true }) name!: string;
    @Expose({ groups: ['hr'] }) @Prop() salary?: number;
    @Expose({ groups: ['hr'] }) @Prop({ type: Pay }) pay?: Pay;
  }

  @GeneratedResource()
  @Schema()
  class Open {
    @Prop() name?: string;
  }

  const staffer = createResourceDefinition({ resource: Staffer });

  describe('writeRulesOf: what a request of some groups may write', () => {
    it("is the model's rules, less the paths the groups do not see (a nested object with its sub-paths)", () => {
      const plain = writeRulesOf(staffer, undefined).fields.writable;
      expect([...plain].filter((path) => /salary|pay/.test(path))).toEqual([]);
      expect(plain.has('name')).toBe(true);
      const hr = writeRulesOf(staffer, ['hr']).fields.writable;
      expect(['name', 'salary', 'pay', 'pay.band', 'pay.bonus'].every((path) => hr.has(path))).toBe(true);
    });

    it('is the rules as given where the model has no group-only field (no copy per request)', () => {
      const open = createResourceDefinition({ resource: Open });
      expect(writeRulesOf(open, ['hr'])).toBe(open);
      expect(writeRulesOf(staffer, ['hr'])).toBe(staffer);
    });

    it('refuses a field the groups do not see in the words of a field that does not exist', () => {
      const refusal = (body: Record<string, unknown>) => {
        try {
          checkWrite(body, writeRulesOf(staffer, []), undefined);
        } catch (error) {
          return (error as ModelRoutesException).getResponse();
        }
        throw new Error('accepted');
      };
      expect(JSON.stringify(refusal({ name: 'a', salary: 1 })).replaceAll('salary', 'nope')).toBe(JSON.stringify(refusal({ name: 'a', nope: 1 })));
      expect(refusal({ pay: { band: 'A' } })).toMatchObject({ code: 'MR_INVALID_BODY', details: [{ path: 'pay', message: "Unknown field 'pay'" }] });
      expect(checkWrite({ name: 'a', salary: 1, pay: { band: 'A' } }, writeRulesOf(staffer, ['hr']), undefined)).toEqual({
        name: 'a',
        salary: 1,
        pay: { band: 'A' },
      });
    });
  });
}
