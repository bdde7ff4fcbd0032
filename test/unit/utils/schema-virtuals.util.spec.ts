import { Schema } from 'mongoose';
import { answeredVirtuals } from '../../../src/utils/schema-virtuals.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function schemaVirtualsUtilSpec(): void {
  function schemaWith(options: Record<string, unknown>): Schema {
    const schema = new Schema({ first: String, last: String, owner: Schema.Types.ObjectId, address: new Schema({ city: String }) }, options);
    schema.virtual('fullName').get(function (this: { first?: string }) {
      return this.first;
    });
    schema.virtual('initial').get(function (this: { first?: string }) {
      return this.first?.[0];
    });
    schema.virtual('posts', { ref: 'Post', localField: '_id', foreignField: 'author' });
    schema.virtual('setOnly').set(() => undefined);
    return schema;
  }

  describe('answeredVirtuals: the virtuals a schema asks to answer', () => {
    it("with toJSON: { virtuals: true }, every virtual with a getter, less Mongoose's id and populate virtuals", () => {
      expect(answeredVirtuals(schemaWith({ toJSON: { virtuals: true } }))).toEqual(['fullName', 'initial']);
    });

    it('with a list of names, those', () => {
      expect(answeredVirtuals(schemaWith({ toJSON: { virtuals: ['initial', 'posts'] } }))).toEqual(['initial']);
    });

    it('none without toJSON virtuals (toObject is for server code)', () => {
      expect(answeredVirtuals(schemaWith({}))).toEqual([]);
      expect(answeredVirtuals(schemaWith({ toObject: { virtuals: true } }))).toEqual([]);
      expect(answeredVirtuals(schemaWith({ toJSON: { virtuals: false } }))).toEqual([]);
    });
  });
}
