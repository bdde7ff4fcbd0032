import type { Model } from 'mongoose';
import type { RepositoryDefinition } from '../../../src/definitions/repository-definition.interface.js';
import type { ResourceHooks, WriteEvent } from '../../../src/hooks/write-hooks.js';
import { RulePipeline } from '../../../src/rules/rule-pipeline.js';
import type { StagedWrite } from '../../../src/rules/rule-stage.js';
import { inTrash } from '../../../src/scopes/soft-delete.js';

type Doc = { _id: unknown; tenant?: string; niceName?: string };

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function rulePipelineSpec(): void {
  describe('RulePipeline (the rules of one resource, as ordered stages)', () => {
    const definition = (extra: Partial<RepositoryDefinition> = {}) =>
      ({ name: 'Company', idField: '_id', fields: { versionKey: '__v' }, ...extra }) as unknown as RepositoryDefinition;
    const model = {} as Model<any>;
    const byTenant = ({ request }: { request: { tenant?: string } }) => (request.tenant ? { tenant: request.tenant } : undefined);
    const north = { request: { tenant: 'north' } };
    const read = async () => null;

    /** A pipeline whose hooks, scope and events write down what they saw, in order. */
    function recorded(hooks: ResourceHooks<Doc> = {}) {
      const seen: string[] = [];
      const logged: ResourceHooks<Doc> = {
        beforeCreate: (context) => {
          seen.push(`beforeCreate ${JSON.stringify(context.data)}`);
          return hooks.beforeCreate?.(context);
        },
        afterCreate: (context) => {
          seen.push(`afterCreate ${context.document.niceName}`);
          return hooks.afterCreate?.(context);
        },
      };
      const emitter = { emit: (name: string, event: WriteEvent) => seen.push(`event ${name} ${event.id}`) };
      const pipeline = new RulePipeline<Doc>(model, definition(), { hooks: logged, events: { prefix: 'company', emitter }, scope: byTenant as never, read });
      return { seen, pipeline };
    }

    const create = (data: Record<string, unknown>, call: object = north, hooks = true): StagedWrite => ({
      phase: 'create',
      operation: 'create',
      data,
      call,
      hooks,
    });

    it('runs before in order (the hooks, then the scope stamps what they left), the write, then after in reverse (the hooks, then the event)', async () => {
      const { seen, pipeline } = recorded();
      const result = await pipeline.write(
        create({ niceName: 'Acme' }),
        async (data) => (seen.push(`write ${JSON.stringify(data)}`), { _id: 'c1', ...data }),
        (doc) => ({ doc }),
      );
      expect(result).toEqual({ _id: 'c1', niceName: 'Acme', tenant: 'north' });
      expect(seen).toEqual(['beforeCreate {"niceName":"Acme"}', 'write {"niceName":"Acme","tenant":"north"}', 'afterCreate Acme', 'event company.created c1']);
    });

    it("refuses a hook that moves a create out of the request's scope: the scope runs on what the hooks leave, and nothing is written", async () => {
      const { seen, pipeline } = recorded({ beforeCreate: ({ data }) => void (data!.tenant = 'south') });
      let written = false;
      const write = async () => ((written = true), { _id: 'c1' });
      await expect(pipeline.write(create({ niceName: 'Acme' }), write, (doc) => ({ doc }))).rejects.toMatchObject({ code: 'MR_OUT_OF_SCOPE' });
      expect(written).toBe(false);
      expect(seen).toEqual(['beforeCreate {"niceName":"Acme"}']);
    });

    it('emits no event when the after-hook fails (the write stays), and no after at all when nothing was stored', async () => {
      const { seen, pipeline } = recorded({
        afterCreate: () => {
          throw new Error('after');
        },
      });
      await expect(
        pipeline.write(
          create({ niceName: 'Acme' }),
          async (data) => ({ _id: 'c1', ...data }),
          (doc) => ({ doc }),
        ),
      ).rejects.toThrow('after');
      expect(seen).toEqual(['beforeCreate {"niceName":"Acme"}', 'afterCreate Acme']);
      seen.length = 0;
      await pipeline.write(
        create({ niceName: 'Gone' }),
        async () => null,
        () => null,
      );
      expect(seen).toEqual(['beforeCreate {"niceName":"Gone"}']);
    });

    it('with { hooks: false } runs no hook of the app, and still the scope and the event', async () => {
      const { seen, pipeline } = recorded();
      const result = await pipeline.write(
        create({ niceName: 'Acme' }, north, false),
        async (data) => ({ _id: 'c1', ...data }),
        (doc) => ({ doc }),
      );
      expect(result).toMatchObject({ tenant: 'north' });
      expect(seen).toEqual(['event company.created c1']);
    });

    it('runs a write that no stage has work for with its data as given, and no record', async () => {
      const pipeline = new RulePipeline<Doc>(model, definition(), { read });
      const data = { niceName: 'Acme' };
      const run = async (given: unknown, record: unknown) => ({ _id: 'c1', given, record });
      expect(await pipeline.write(create(data), run, (doc) => ({ doc }))).toEqual({ _id: 'c1', given: data, record: undefined });
      expect(pipeline.filter(north, 'read')).toBeUndefined();
      expect(pipeline.filters).toBe(false);
    });

    it("ANDs its read stages' conditions for a call: the living documents (or, in the trash, the marked), then the row scope", () => {
      const pipeline = new RulePipeline<Doc>(model, definition({ softDelete: { field: 'deletedAt' } }), { scope: byTenant as never, read });
      expect(pipeline.filter(north, 'read')).toEqual({ deletedAt: null, tenant: 'north' });
      expect(pipeline.filter(north, 'write')).toEqual({ deletedAt: null, tenant: 'north' });
      expect(pipeline.filter(inTrash(north, 'Company'), 'read')).toEqual({ deletedAt: { $ne: null }, tenant: 'north' });
      // Another resource's trash is not this one's.
      expect(pipeline.filter(inTrash(north, 'Person'), 'read')).toEqual({ deletedAt: null, tenant: 'north' });
      // A call without a request: no scope, soft delete still holds.
      expect(pipeline.filter({}, 'read')).toEqual({ deletedAt: null });
    });

    it("checks an update's data against the scope: a stamped field may be named with its own value, not changed nor removed", async () => {
      const pipeline = new RulePipeline<Doc>(model, definition(), { scope: byTenant as never, read });
      const update = (data: Record<string, unknown>): StagedWrite => ({ phase: 'update', operation: 'update', id: 'c1', data, call: north, hooks: true });
      const run = async () => ({ _id: 'c1' });
      await expect(pipeline.write(update({ tenant: 'north', niceName: 'x' }), run, (doc) => ({ doc }))).resolves.toEqual({ _id: 'c1' });
      await expect(pipeline.write(update({ tenant: 'south' }), run, (doc) => ({ doc }))).rejects.toMatchObject({ code: 'MR_OUT_OF_SCOPE' });
      await expect(pipeline.write(update({ tenant: null }), run, (doc) => ({ doc }))).rejects.toMatchObject({ code: 'MR_OUT_OF_SCOPE' });
    });
  });
}
