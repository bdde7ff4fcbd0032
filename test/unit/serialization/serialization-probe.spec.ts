import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Exclude, Expose, Transform } from 'class-transformer';
import { Types } from 'mongoose';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { EVERY_GROUP, probeClass } from '../../../src/serialization/serialization-probe.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function serializationProbeSpec(): void {
  @Schema()
  class Door {
    @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value)) @Prop() colour?: string;
    @Exclude() @Prop() code?: string;
    @Expose({ groups: ['staff'] }) @Prop() lock?: string;
  }

  @Schema({ timestamps: true })
  class Vault {
    @Prop() name?: string;
    @Exclude() @Prop() combination?: string;
    @Expose({ groups: ['admin'] }) @Prop() owner?: string;
    @Expose({ groups: ['admin', 'auditor'] }) @Prop() balance?: number;
    @Transform(({ value }) => (typeof value === 'string' ? value.toUpperCase() : value)) @Prop() label?: string;
    @Transform(({ value }) => (value instanceof Date ? value.toISOString().slice(0, 10) : value), { groups: ['admin'] }) @Prop() openedAt?: Date;
    @Transform(({ value }) => value) @Prop() same?: string;
    @Prop({ type: Door }) door?: Door;
  }

  /** A class-level @Exclude(): only what is @Expose()d is shown. */
  @Exclude()
  @Schema()
  class Sealed {
    @Expose() @Prop() shown?: string;
    @Prop() kept?: string;
  }

  @Schema()
  class Renamed {
    @Expose({ name: 'title' }) @Prop() name?: string;
  }

  @Schema()
  class Fragile {
    @Transform(({ value }) => (value as Date).toISOString()) @Prop() when?: string;
  }

  @Schema()
  class Bare {
    @Prop() a?: string;
    @Prop({ type: Types.ObjectId }) b?: Types.ObjectId;
    @Prop() c?: Date;
  }

  function probe(target: Function, groups: readonly string[] | undefined) {
    const schema = SchemaFactory.createForClass(target as never);
    return probeClass(target, schema, createFieldRules(schema).readable, groups);
  }

  describe('probeClass', () => {
    it('without groups: hides @Exclude() and every group-only @Expose(), at every depth', () => {
      expect(probe(Vault, undefined).hidden.sort()).toEqual(['balance', 'combination', 'door.code', 'door.lock', 'owner']);
    });

    it('with groups: shows what they are exposed to', () => {
      expect(probe(Vault, ['auditor']).hidden.sort()).toEqual(['combination', 'door.code', 'door.lock', 'owner']);
      expect(probe(Vault, ['admin', 'staff']).hidden.sort()).toEqual(['combination', 'door.code']);
    });

    it('with every group: only what no group sees (@Exclude())', () => {
      expect(probe(Vault, EVERY_GROUP).hidden.sort()).toEqual(['combination', 'door.code']);
    });

    it('finds the properties a @Transform changes, for the groups it names, in nested classes too', () => {
      expect(probe(Vault, undefined).transformed.sort()).toEqual(['door.colour', 'label']);
      expect(probe(Vault, ['admin']).transformed.sort()).toEqual(['door.colour', 'label', 'openedAt']);
      expect(probe(Vault, undefined).owners).toEqual(
        new Map<string, Function>([
          ['', Vault],
          ['door', Door],
        ]),
      );
    });

    it('takes a transform that returns its values unchanged for the identity', () => {
      expect(probe(Vault, EVERY_GROUP).transformed).not.toContain('same');
    });

    it('follows a class-level @Exclude()', () => {
      expect(probe(Sealed, undefined).hidden).toEqual(['kept']);
    });

    it('never hides _id, and finds nothing in a class without decorators', () => {
      expect(probe(Bare, undefined)).toEqual({ hidden: [], transformed: [], owners: new Map() });
      expect(probe(Sealed, undefined).hidden).not.toContain('_id');
    });

    it('refuses a renamed property, naming the class and the fix', () => {
      expect(() => probe(Renamed, undefined)).toThrow(/Renamed: .*'title'.*Remove the name option\. \[MR_CONFIG_INVALID_OPTION\]/);
    });

    it('refuses a transform that fails on a value of its field, naming the class', () => {
      expect(() => probe(Fragile, undefined)).toThrow(/Fragile: class-transformer failed .*\[MR_CONFIG_INVALID_OPTION\]/);
    });
  });
}
