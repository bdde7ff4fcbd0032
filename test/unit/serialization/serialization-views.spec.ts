import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Exclude, Expose, Transform } from 'class-transformer';
import { createFieldRules } from '../../../src/definitions/field-rules.factory.js';
import { isQueryablePath } from '../../../src/query/field-path.util.js';
import { SerializationViews, excludedPaths } from '../../../src/serialization/serialization-views.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function serializationViewsSpec(): void {
  @Schema()
  class Card {
    @Prop() holder?: string;
    @Exclude() @Prop() pin?: string;
    @Expose({ groups: ['admin'] }) @Prop() limit?: number;
    @Transform(({ value, obj }) => (typeof value === 'string' ? `${value} of ${(obj as Card).holder}` : value)) @Prop() nickname?: string;
  }

  @Schema()
  class Plain {
    @Prop() text?: string;
  }

  function viewsOf(target: Function) {
    const schema = SchemaFactory.createForClass(target as never);
    const base = createFieldRules(schema);
    const fields = createFieldRules(schema, { hidden: excludedPaths(target, schema, base.readable) });
    return { views: SerializationViews.of(target, schema, fields), fields };
  }

  describe('excludedPaths', () => {
    it('are the paths no group sees', () => {
      const schema = SchemaFactory.createForClass(Card);
      expect(excludedPaths(Card, schema, createFieldRules(schema).readable)).toEqual(['pin']);
    });
  });

  describe('SerializationViews', () => {
    it('is undefined for a class whose decorators change nothing per group', () => {
      expect(viewsOf(Plain).views).toBeUndefined();
    });

    it('computes a view once per group set, whatever the order of the groups', () => {
      const { views } = viewsOf(Card);
      expect(views!.view(['admin', 'x'])).toBe(views!.view(['x', 'admin']));
      expect(views!.view(undefined)).toBe(views!.view([]));
      expect(views!.view(['admin'])).not.toBe(views!.view(undefined));
    });

    it('knows the group-only paths, and which groups see each', () => {
      expect([...viewsOf(Card).views!.groupOnly]).toEqual(['limit']);
      expect(viewsOf(Card).views!.visibleTo('limit')).toEqual(['admin']);
    });

    it('finds the groups without leaving Array.prototype.includes changed', () => {
      const includes = Array.prototype.includes;
      viewsOf(Card).views!.visibleTo('limit');
      expect(Array.prototype.includes).toBe(includes);
    });

    it('gives the search rules of a group set: what it cannot see is not queryable', () => {
      const { views, fields } = viewsOf(Card);
      const search = {} as never;
      expect(isQueryablePath('limit', { fields, search })).toBe(true);
      expect(isQueryablePath('limit', { fields: views!.view(undefined).fields, search })).toBe(false);
      expect(isQueryablePath('limit', { fields: views!.view(['admin']).fields, search })).toBe(true);
      expect(views!.view(['admin']).fields).toBe(fields);
      expect(isQueryablePath('pin', { fields: views!.view(['admin']).fields, search })).toBe(false);
    });

    it('applies a view: transforms (which see the whole document), then hidden paths', () => {
      const { views } = viewsOf(Card);
      const doc = () => ({ _id: 'id', holder: 'Ada', limit: 100, nickname: 'card' });
      const plain = doc();
      views!.apply(plain, views!.view(undefined));
      expect(plain).toEqual({ _id: 'id', holder: 'Ada', nickname: 'card of Ada' });
      const admin = doc();
      views!.apply(admin, views!.view(['admin']));
      expect(admin).toEqual({ _id: 'id', holder: 'Ada', limit: 100, nickname: 'card of Ada' });
    });

    it('transforms only the properties a document has (a select)', () => {
      const { views } = viewsOf(Card);
      const selected: Record<string, unknown> = { _id: 'id', holder: 'Ada' };
      views!.apply(selected, views!.view(['admin']));
      expect(selected).toEqual({ _id: 'id', holder: 'Ada' });
    });
  });
}
