import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { createResourceDefinition } from '../../../src/definitions/resource-definition.factory.js';
import { subTypeChanges, subTypeOfBody } from '../../../src/definitions/sub-types.util.js';
import { checkCreate } from '../../../src/call/sub-type.util.js';
import { GeneratedResource, ModelRoutesConfigError } from '../../../src/index.js';
import { ModelRoutesException } from '../../../src/errors/model-routes.exception.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function discriminatorsFactorySpec(): void {
  @Schema()
  class Novel {
    @Prop({ required: true }) isbn!: string;
    @Prop({ type: Object }) notes?: Record<string, unknown>;
  }

  @Schema()
  class Tee {
    @Prop({ required: true, enum: ['S', 'M', 'L'] }) size!: string;
  }

  @GeneratedResource({ discriminators: [Novel, Tee] })
  @Schema({ discriminatorKey: 'kind' })
  class Ware {
    @Prop({ required: true }) name!: string;
  }

  const definition = () => createResourceDefinition({ resource: Ware });
  const thrown = (work: () => unknown): unknown => {
    try {
      work();
    } catch (error) {
      return error;
    }
    throw new Error('nothing thrown');
  };

  it("reads every sub-type's fields into the resource's, none required, and the key as an enum of their values", () => {
    const { schema, modelSchema, discriminator, fields } = definition();
    expect(discriminator?.key).toBe('kind');
    expect(discriminator?.types.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'Novel', value: 'Novel' },
      { name: 'Tee', value: 'Tee' },
    ]);
    expect([...fields.writable]).toEqual(expect.arrayContaining(['name', 'kind', 'isbn', 'size', 'notes']));
    expect(schema.path('isbn')?.isRequired).toBeFalsy();
    expect((schema.path('kind')?.options as { enum?: unknown }).enum).toEqual(['Novel', 'Tee']);
    // The model is compiled from the base schema and its discriminators, which keep their own rules.
    expect(modelSchema?.path('isbn')).toBeUndefined();
    expect(discriminator?.types[0].schema.path('isbn')?.isRequired).toBe(true);
  });

  it('names each sub-type its DTOs', () => {
    const { discriminator } = definition();
    expect(discriminator?.types.map(({ dtos }) => [dtos.create.name, dtos.update.name])).toEqual([
      ['NovelCreateDto', 'NovelUpdateDto'],
      ['TeeCreateDto', 'TeeUpdateDto'],
    ]);
  });

  it('checks a create as the sub-type its key names: the key required and declared, the other sub-types unknown', () => {
    const resource = definition();
    expect(checkCreate({ kind: 'Novel', name: 'Dune', isbn: '1', notes: { a: 1 } }, resource, resource.dtos.create)).toEqual({
      kind: 'Novel',
      name: 'Dune',
      isbn: '1',
      notes: { a: 1 },
    });
    const missing = thrown(() => checkCreate({ name: 'Dune' }, resource, resource.dtos.create)) as ModelRoutesException;
    expect([missing.code, missing.details]).toEqual(['MR_VALIDATION_FAILED', [{ path: 'kind', message: 'kind is required: one of Novel, Tee' }]]);
    const foreign = thrown(() => checkCreate({ kind: 'Novel', name: 'Dune', isbn: '1', size: 'M' }, resource, resource.dtos.create)) as ModelRoutesException;
    expect([foreign.code, foreign.details]).toEqual(['MR_INVALID_BODY', [{ path: 'size', message: "Unknown field 'size'" }]]);
    const required = thrown(() => checkCreate({ kind: 'Tee', name: 'Tee' }, resource, resource.dtos.create)) as ModelRoutesException;
    expect(required.code).toBe('MR_VALIDATION_FAILED');
    expect(subTypeOfBody('not an object', resource.discriminator!)).toBeUndefined();
  });

  it("checks an update's changes against the stored sub-type: the key may be resent, not changed", () => {
    const { discriminator } = definition();
    const [novel] = discriminator!.types;
    expect(subTypeChanges({ kind: 'Novel', isbn: '2', name: 'x' }, 'kind', novel)).toEqual({ isbn: '2', name: 'x' });
    expect((thrown(() => subTypeChanges({ size: 'M' }, 'kind', novel)) as ModelRoutesException).details).toEqual([
      { path: 'size', message: "Unknown field 'size'" },
    ]);
    expect((thrown(() => subTypeChanges({ kind: 'Tee' }, 'kind', novel)) as ModelRoutesException).code).toBe('MR_INVALID_BODY');
  });

  it('refuses a sub-type declared twice', () => {
    @GeneratedResource({ discriminators: [Novel, Novel] })
    @Schema({ discriminatorKey: 'kind' })
    class Twice {
      @Prop() name?: string;
    }
    const error = thrown(() => createResourceDefinition({ resource: Twice })) as ModelRoutesConfigError;
    expect(error).toBeInstanceOf(ModelRoutesConfigError);
    expect(error.message).toMatch(/^Twice: the sub-type Novel is declared twice/);
  });

  it('reads the same registration twice (two apps of one set of options) without declaring its sub-types twice', () => {
    @GeneratedResource()
    @Schema({ discriminatorKey: 'kind' })
    class Stock {
      @Prop() name?: string;
    }
    const registration = {
      resource: Stock,
      schema: SchemaFactory.createForClass(Stock),
      discriminators: [{ name: 'Crate', schema: SchemaFactory.createForClass(Tee) }],
    };
    expect(createResourceDefinition(registration).discriminator?.types.map((type) => type.name)).toEqual(['Crate']);
    expect(createResourceDefinition(registration).discriminator?.types.map((type) => type.name)).toEqual(['Crate']);
  });

  it('leaves a schema without discriminators as it was', () => {
    @GeneratedResource()
    @Schema()
    class Plain {
      @Prop() name?: string;
    }
    const plain = createResourceDefinition({ resource: Plain, schema: SchemaFactory.createForClass(Plain) });
    expect(plain.discriminator).toBeUndefined();
    expect(plain.modelSchema).toBeUndefined();
  });
}
