import type { AfterWriteContext, BeforeWriteContext, HookPhase, ResourceHooks } from '../hooks/write-hooks.js';
import type { CallContext } from '../call/call-context.js';
import { RUN_APP_CODE, writeEventOf, type AppCodeRunner, type StagedWrite, type StoredWrite, type WriteStage } from './rule-stage.js';

const BEFORE = { create: 'beforeCreate', update: 'beforeUpdate', delete: 'beforeDelete' } as const;
const AFTER = { create: 'afterCreate', update: 'afterUpdate', delete: 'afterDelete' } as const;

/**
 * The resource's lifecycle hooks (`@GeneratedResource({ hooks })`, see `ResourceHooks`): the
 * before-hook may change the data or refuse; the after-hook sees the stored document. A write made
 * with `{ hooks: false }` runs neither (the other stages still run).
 */
export class HooksStage<D extends { _id: unknown }> implements WriteStage<D> {
  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hooks of any resource, each typed by its own document
    private readonly hooks: ResourceHooks<any>,
    private readonly resource: string,
    private readonly idField: string,
    private readonly read: (id: string, call: CallContext) => Promise<D | null>,
    private readonly appCode: AppCodeRunner = RUN_APP_CODE,
  ) {}

  applies(phase: HookPhase): boolean {
    return typeof this.hooks[BEFORE[phase]] === 'function' || typeof this.hooks[AFTER[phase]] === 'function';
  }

  async before(write: StagedWrite): Promise<void> {
    const hook = this.hooks[BEFORE[write.phase]];
    if (!write.hooks || typeof hook !== 'function') return;
    const { id, field, operation, data, call } = write;
    const context = {
      resource: this.resource,
      operation,
      ...(id !== undefined && { id }),
      ...(field !== undefined && { field }),
      ...(data !== undefined && { data }),
      ...(call.request !== undefined && { request: call.request }),
      current: () => (id === undefined ? Promise.resolve(null) : this.read(id, call)),
    } satisfies BeforeWriteContext<unknown>;
    const returned = await this.appCode(call, () => hook.call(this.hooks, context));
    if (data !== undefined && returned !== null && typeof returned === 'object' && !Array.isArray(returned)) write.data = returned as Record<string, unknown>;
  }

  async after(write: StagedWrite, stored: StoredWrite<D>): Promise<void> {
    const hook = this.hooks[AFTER[write.phase]];
    if (!write.hooks || typeof hook !== 'function') return;
    const { call } = write;
    const context: AfterWriteContext<unknown> = writeEventOf(this.resource, this.idField, write, stored);
    if (call.request !== undefined) context.request = call.request;
    await this.appCode(call, () => hook.call(this.hooks, context));
  }
}
