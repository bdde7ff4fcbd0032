import { Prop, Schema } from '@nestjs/mongoose';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GeneratedResource } from '../../../src/decorators/generated-resource.decorator.js';
import { GeneratedDto } from '../../../src/definitions/generated-dto.js';
import { validateDto } from '../../../src/dto/dto-validation.js';
import { createControllers } from '../../../src/factories/controllers.factory.js';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { planModelRoutes } from '../../../src/routes/model-routes-plan.js';
import { Contact, CreateContactDto, Gadget, Maker, UpdateContactDto } from '../../fixtures/dto-models.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function resourceDtoFactorySpec(): void {
  /** The messages class-validator gives for `body` with `dto`, by property. */
  async function failures(dto: Function, body: object): Promise<Record<string, string[]>> {
    const errors = await validate(plainToInstance(dto as new () => object, body), { whitelist: true, forbidNonWhitelisted: true });
    return Object.fromEntries(errors.map((error) => [error.property, Object.keys(error.constraints ?? { nested: '' }).sort()]));
  }

  describe('the DTO classes generated from a schema', () => {
    const { dtos } = createResourceDefinition({ resource: Gadget });

    it('have stable, meaningful names', () => {
      expect([dtos.create.name, dtos.update.name, dtos.search.name]).toEqual(['GadgetCreateDto', 'GadgetUpdateDto', 'GadgetSearchDto']);
    });

    it('are the classes GeneratedDto() returns, the same on every call', () => {
      expect(GeneratedDto(Gadget, 'create')).toBe(dtos.create);
      expect(GeneratedDto(Gadget, 'update')).toBe(GeneratedDto(Gadget, 'update'));
      expect(createResourceDefinition({ resource: Gadget }).dtos.create).toBe(dtos.create);
    });

    it('hold no _id, timestamp, readonly or hidden field, but the writeOnly one', async () => {
      expect(await failures(dtos.create, { name: 'abc', _id: 'x', createdAt: 'x', serial: 'x', secret: 'x', pin: '1' })).toEqual({
        _id: ['whitelistValidation'],
        createdAt: ['whitelistValidation'],
        serial: ['whitelistValidation'],
        secret: ['whitelistValidation'],
      });
    });

    it.each<[string, object, Record<string, string[]>]>([
      ['required', {}, { name: ['isDefined', 'isString', 'maxLength', 'minLength'] }],
      ['String with minlength, maxlength', { name: 'ab' }, { name: ['minLength'] }],
      ['match', { name: 'abc', code: 'X' }, { code: ['matches'] }],
      ['Number with min and max', { name: 'abc', score: 101 }, { score: ['max'] }],
      ['Int32', { name: 'abc', count: 1.5 }, { count: ['isInt'] }],
      ['Boolean', { name: 'abc', active: 1 }, { active: ['isBoolean'] }],
      ['Date', { name: 'abc', releasedAt: 'x' }, { releasedAt: ['isDateString'] }],
      ['enum', { name: 'abc', color: 'x' }, { color: ['isIn'] }],
      ['reference', { name: 'abc', maker: 'x' }, { maker: ['isMongoId'] }],
      ['array of references', { name: 'abc', partners: ['x'] }, { partners: ['isMongoId'] }],
      ['nested object', { name: 'abc', size: 'x' }, { size: ['isObject', 'nestedValidation'] }],
      ['array of sub-documents', { name: 'abc', lines: {} }, { lines: ['isArray'] }],
      ['Mixed (anything)', { name: 'abc', extra: [1, { a: 2 }] }, {}],
    ])('create: %s', async (_rule, body, expected) => {
      expect(await failures(dtos.create, body)).toEqual(expected);
    });

    it('update: every field optional, a required one not nullable, nested objects partial', async () => {
      expect(await failures(dtos.update, {})).toEqual({});
      expect(await failures(dtos.update, { name: null })).toEqual({ name: ['isDefined', 'isString', 'maxLength', 'minLength'] });
      expect(await failures(dtos.update, { size: { width: 3 } })).toEqual({});
      expect(await failures(dtos.create, { name: 'abc', size: { width: 3 } })).toEqual({ size: ['nested'] });
    });

    it('name the nested classes after their path', () => {
      const nested = (dto: Function, body: object) => plainToInstance(dto as new () => Record<string, unknown>, body) as Record<string, unknown[]>;
      const created = nested(dtos.create, { size: {}, lines: [{}] });
      expect((created.size as unknown as object).constructor.name).toBe('GadgetSizeCreateDto');
      expect(created.lines[0]!.constructor.name).toBe('GadgetLinesItemDto');
      expect((nested(dtos.update, { size: {} }).size as unknown as object).constructor.name).toBe('GadgetSizeUpdateDto');
    });
  });

  function thrown(run: () => unknown): unknown {
    try {
      run();
    } catch (error) {
      return error;
    }
    throw new Error('it did not throw');
  }

  describe("validateDto: the library's own validation", () => {
    const { dtos } = createResourceDefinition({ resource: Gadget });

    it('returns the data as plain objects, without properties left undefined', async () => {
      const data = validateDto(dtos.create, { name: 'abc', size: { unit: 'cm' }, lines: [{ sku: 'ab', qty: 1 }] });
      expect(data).toStrictEqual({ name: 'abc', size: { unit: 'cm' }, lines: [{ sku: 'ab', qty: 1 }] });
    });

    it('answers one detail per failed constraint, a missing or mistyped value once, array elements by position', async () => {
      // Synchronous for a generated class (no async rule): it throws at once.
      expect(thrown(() => validateDto(dtos.create, { score: 'x', tags: ['a', 1, 2], lines: [{ sku: 'ab', qty: 0 }] }))).toMatchObject({
        code: 'MR_VALIDATION_FAILED',
        message: 'Validation failed for name, score, tags.1, tags.2, lines.0.qty',
        details: [
          { path: 'name', message: 'name is required' },
          { path: 'score', message: 'score must be a number' },
          { path: 'tags.1', message: 'tags must be a string' },
          { path: 'tags.2', message: 'tags must be a string' },
          { path: 'lines.0.qty', message: 'qty must not be less than 1' },
        ],
      });
    });
  });

  describe('user DTOs', () => {
    it('replace the generated ones for create and update separately; the search DTO stays generated', () => {
      const { dtos } = createResourceDefinition({ resource: Contact });
      expect(dtos.create).toBe(CreateContactDto);
      expect(dtos.update).toBe(UpdateContactDto);
      expect(dtos.search.name).toBe('ContactSearchDto');
      expect(Object.getPrototypeOf(CreateContactDto)).toBe(GeneratedDto(Contact, 'create'));
    });

    it('that are not classes are a configuration error naming the resource', () => {
      @GeneratedResource({ dto: { create: (() => 'nope') as never } })
      @Schema()
      class Broken {
        @Prop() name?: string;
      }
      expect(() => createResourceDefinition({ resource: Broken })).toThrow(
        'Broken: @GeneratedResource({ dto: { create } }) must be a class, or an arrow function returning one.',
      );
    });
  });

  describe('the generated handlers', () => {
    it('declare the DTO classes as the types of their body parameters, for the pipes to read', () => {
      const plan = planModelRoutes({ resources: [Gadget, Maker, Contact] });
      const controllers = new Map(createControllers(plan.definitions, plan.table).map((controller) => [controller.name, controller]));
      const bodyType = (controller: string, handler: string) =>
        (Reflect.getMetadata('design:paramtypes', controllers.get(controller)!.prototype, handler) as Function[]).find(
          (type) => type !== Object && type !== String,
        )?.name;
      expect(bodyType('GadgetController', 'create')).toBe('GadgetCreateDto');
      expect(bodyType('GadgetController', 'update')).toBe('GadgetUpdateDto');
      expect(bodyType('GadgetController', 'patch')).toBe('GadgetUpdateDto');
      expect(bodyType('GadgetController', 'searchPost')).toBe('GadgetSearchDto');
      expect(bodyType('GadgetMakerReferenceController', 'reversePost')).toBe('GadgetMakerSearchDto');
      expect(bodyType('ContactController', 'create')).toBe('CreateContactDto');
      expect(bodyType('ContactController', 'findOne')).toBeUndefined();
    });
  });
}
