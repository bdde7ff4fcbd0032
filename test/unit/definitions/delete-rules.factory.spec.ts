import { Schema } from 'mongoose';
import { findDeleteRules } from '../../../src/definitions/delete-rules.factory.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function deleteRulesFactorySpec(): void {
  const { ObjectId, Mixed } = Schema.Types;

  class Entrepreneur {}

  describe('findDeleteRules', () => {
    it('reads onDelete next to ref: single references, arrays (on the array or its element), nested paths', () => {
      const schema = new Schema({
        owner: { type: ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' },
        backer: { type: ObjectId, ref: () => Entrepreneur, onDelete: 'nullify' },
        members: [{ type: ObjectId, ref: 'Entrepreneur', onDelete: 'pull' }],
        guests: { type: [ObjectId], ref: 'Entrepreneur', onDelete: 'pull' },
        meta: { reviewer: { type: ObjectId, ref: 'Entrepreneur', onDelete: 'nullify' } },
      });
      expect(findDeleteRules(schema, 'Company')).toEqual([
        { model: 'Company', field: 'owner', targetName: 'Entrepreneur', onDelete: 'restrict' },
        { model: 'Company', field: 'backer', targetName: 'Entrepreneur', onDelete: 'nullify' },
        { model: 'Company', field: 'members', targetName: 'Entrepreneur', onDelete: 'pull' },
        { model: 'Company', field: 'guests', targetName: 'Entrepreneur', onDelete: 'pull' },
        { model: 'Company', field: 'meta.reviewer', targetName: 'Entrepreneur', onDelete: 'nullify' },
      ]);
    });

    it('reads onDelete inside sub-documents and arrays of them', () => {
      const visit = new Schema({ vet: { type: ObjectId, ref: 'Entrepreneur', onDelete: 'nullify' } });
      const dose = new Schema({ vet: { type: ObjectId, ref: 'Entrepreneur', onDelete: 'restrict' } });
      const schema = new Schema({ lastVisit: visit, doses: [dose] });
      expect(findDeleteRules(schema, 'Pet')).toEqual([
        { model: 'Pet', field: 'lastVisit.vet', targetName: 'Entrepreneur', onDelete: 'nullify' },
        { model: 'Pet', field: 'doses.vet', targetName: 'Entrepreneur', onDelete: 'restrict' },
      ]);
    });

    it.each(['nullify', 'pull'])("refuses '%s' inside an array of sub-documents, naming the field and the fix", (mode) => {
      const element =
        mode === 'pull'
          ? { vets: [{ type: ObjectId, ref: 'Entrepreneur', onDelete: mode }] }
          : { vet: { type: ObjectId, ref: 'Entrepreneur', onDelete: mode } };
      const schema = new Schema({ doses: [new Schema(element)] });
      expect(() => findDeleteRules(schema, 'Pet')).toThrow(
        new RegExp(`Pet\\.doses\\.vets?: onDelete: '${mode}' is not supported inside an array of sub-documents; use 'restrict'`),
      );
    });

    it("gives no rule for 'ignore', nor for references that declare nothing", () => {
      const schema = new Schema({ owner: { type: ObjectId, ref: 'Entrepreneur', onDelete: 'ignore' }, members: [{ type: ObjectId, ref: 'Entrepreneur' }] });
      expect(findDeleteRules(schema, 'Company')).toEqual([]);
    });

    it('reads a Mixed path with a ref as a single reference (how @nestjs/mongoose leaves `Types.ObjectId` outside a resource)', () => {
      const schema = new Schema({ actor: { type: Mixed, ref: 'Entrepreneur', onDelete: 'nullify' } });
      expect(findDeleteRules(schema, 'Audit')).toEqual([{ model: 'Audit', field: 'actor', targetName: 'Entrepreneur', onDelete: 'nullify' }]);
    });

    it('does not call the ref of a path that declares no onDelete (a dynamic ref of a model that is no resource)', () => {
      let calls = 0;
      const ref = () => {
        calls++;
        throw new Error('needs a document');
      };
      expect(findDeleteRules(new Schema({ owner: { type: ObjectId, ref } }), 'Audit')).toEqual([]);
      expect(calls).toBe(0);
    });
  });
}
