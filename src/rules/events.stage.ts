import type { HookPhase, WriteEventSink } from '../hooks/write-hooks.js';
import { RUN_APP_CODE, writeEventOf, type AppCodeRunner, type StagedWrite, type StoredWrite, type WriteStage } from './rule-stage.js';

const EVENT = { create: 'created', update: 'updated', delete: 'deleted' } as const;

/**
 * The events of stored writes (`company.created`, `company.updated`, `company.deleted`, see
 * `WriteEvent`), where the application has an event emitter; emitted after the after-hook, so a
 * listener hears of what the hook let stand, and for `{ hooks: false }` writes too.
 */
export class EventsStage<D extends { _id: unknown }> implements WriteStage<D> {
  constructor(
    private readonly sink: WriteEventSink,
    private readonly resource: string,
    private readonly idField: string,
    private readonly appCode: AppCodeRunner = RUN_APP_CODE,
  ) {}

  /** The emitter is found when the module initialises: until then (and without one), nothing to do. */
  applies(_phase: HookPhase): boolean {
    return this.sink.emitter !== undefined;
  }

  after(write: StagedWrite, stored: StoredWrite<D>): void {
    const told = writeEventOf(this.resource, this.idField, write, stored);
    // Listeners run as the emitter runs them (@OnEvent's errors are logged, not thrown).
    this.appCode(write.call, () => this.sink.emitter?.emit(`${this.sink.prefix}.${EVENT[write.phase]}`, told));
  }
}
