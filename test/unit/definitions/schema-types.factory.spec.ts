import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import mongoose, { Types } from 'mongoose';
import { GeneratedResource } from '../../../src/index.js';
import { createResourceSchema } from '../../../src/definitions/schema.factory.js';
import { createResourceDefinition, DEFAULT_ACYCLIC_MAX_DEPTH } from '../../../src/definitions/resource-definition.factory.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function schemaTypesFactorySpec(): void {
  /*
   * BSON-class spellings of a type (issue 23, item 19): @nestjs/mongoose reads a class given as
   * `type` as a nested class and makes the path Mixed; the library restores the schema type at every
   * depth, or refuses at start-up, naming Class.field and the fix.
   */

  @Schema({ _id: false })
  class Line {
    @Prop({ type: mongoose.Types.Decimal128 }) price?: Types.Decimal128;
    @Prop({ type: Object }) extra?: Record<string, unknown>;
  }

  @GeneratedResource()
  @Schema()
  class Ledger {
    @Prop({ type: mongoose.Types.Decimal128 }) balance?: Types.Decimal128;
    @Prop() opened?: Types.ObjectId;
    @Prop({ type: [Line] }) lines?: Line[];
    @Prop({ type: Line }) total?: Line;
    @Prop({ type: [SchemaFactory.createForClass(Line)] }) history?: Line[];
    @Prop({ type: mongoose.Schema.Types.Mixed }) anything?: Types.Decimal128;
    @Prop({ type: [Types.ObjectId], ref: 'Ledger' }) related?: Types.ObjectId[];
  }

  @GeneratedResource()
  @Schema()
  class Mistyped {
    @Prop({ type: mongoose.Types.Decimal128 }) balance?: string;
  }

  @GeneratedResource()
  @Schema()
  class Unsupported {
    @Prop({ type: mongoose.mongo.Long }) count?: mongoose.mongo.Long;
  }

  describe('createResourceSchema: BSON classes as types', () => {
    const schema = createResourceSchema(Ledger);

    it('makes mongoose.Types.Decimal128 and Types.ObjectId the schema types they name, at every depth', () => {
      expect(schema.path('balance').instance).toBe('Decimal128');
      expect(schema.path('opened').instance).toBe('ObjectId');
      for (const path of ['lines.price', 'total.price', 'history.price']) expect(schema.path(path).instance).toBe('Decimal128');
      expect(schema.path('related').instance).toBe('Array');
      expect((schema.path('related') as unknown as { embeddedSchemaType: { instance: string } }).embeddedSchemaType.instance).toBe('ObjectId');
    });

    it('leaves Mixed what is meant to be: type: Object, and an explicit Schema.Types.Mixed', () => {
      expect(schema.path('lines.extra').instance).toBe('Mixed');
      expect(schema.path('anything').instance).toBe('Mixed');
    });

    it('keeps the order of the fields', () => {
      expect(Object.keys(schema.paths).slice(0, 3)).toEqual(['balance', 'opened', 'lines']);
    });

    it('refuses a field declared as a string that the class given as type made Mixed, naming it and the fix', () => {
      expect(() => createResourceSchema(Mistyped)).toThrow(
        /Mistyped\.balance: declared as string.*mongoose\.Schema\.Types\.Decimal128.*MR_CONFIG_INVALID_OPTION/s,
      );
    });

    it('refuses a BSON class Mongoose has no schema type for', () => {
      expect(() => createResourceSchema(Unsupported)).toThrow(/Unsupported\.count: Mongoose has no schema type for the BSON class Long/);
    });
  });

  describe('the acyclic option of a reference', () => {
    @GeneratedResource()
    @Schema()
    class Node {
      @Prop({ type: [{ type: Types.ObjectId, ref: 'Node' }], acyclic: true }) children?: Types.ObjectId[];
    }

    @GeneratedResource()
    @Schema()
    class Leaf {
      @Prop({ type: Types.ObjectId, ref: 'Node', acyclic: true }) node?: Types.ObjectId;
    }

    @GeneratedResource()
    @Schema()
    class Branch {
      @Prop({ type: Types.ObjectId, ref: 'Branch', acyclic: { maxDepth: 0 } }) parent?: Types.ObjectId;
    }

    @GeneratedResource()
    @Schema()
    class Tree {
      @Prop({ type: Types.ObjectId, ref: 'Tree', acyclic: true }) parent?: Types.ObjectId;
    }

    it('applies to a single self-reference, with a default bound', () => {
      expect(createResourceDefinition({ resource: Tree }).references).toEqual([
        expect.objectContaining({ field: 'parent', acyclic: { maxDepth: DEFAULT_ACYCLIC_MAX_DEPTH } }),
      ]);
    });

    it.each([
      [Node, /Node\.children: acyclic applies to a single reference of Node to itself/],
      [Leaf, /Leaf\.node: acyclic applies to a single reference of Leaf to itself/],
      [Branch, /Branch\.parent: acyclic\.maxDepth: 0 must be an integer of at least 1/],
    ])('is refused elsewhere, naming the field and the fix (%p)', (resource, message) => {
      expect(() => createResourceDefinition({ resource })).toThrow(message);
    });
  });
}
