import type { Model } from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import type { RepositoryDefinition } from '../definitions/repository-definition.interface.js';
import type { ResourceHooks, WriteEventSink } from '../hooks/write-hooks.js';
import type { RowScope, RowScopeFunction } from '../interfaces/row-scope.interface.js';
import { RowScopes } from '../scopes/row-scope.js';
import { allOf } from '../utils/all-of.util.js';
import { EventsStage } from './events.stage.js';
import { HistoryStage } from './history.stage.js';
import { HooksStage } from './hooks.stage.js';
import { WriteRecord, type AppCodeRunner, type ReadStage, type StagedWrite, type StoredWrite, type WriteStage } from './rule-stage.js';
import { ScopeStage } from './scope.stage.js';
import { SoftDeleteStage } from './soft-delete.stage.js';

/** What a resource's rules are made of: its options (`@GeneratedResource`), and how its hooks read a document. */
export interface RuleOptions<D> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hooks of any resource, each typed by its own document
  hooks?: ResourceHooks<any>;
  events?: WriteEventSink;
  scope?: RowScope | RowScopeFunction;
  /** Reads a document as the routes answer it, for a before-hook's `current()`. */
  read: (id: string, call: CallContext) => Promise<D | null>;
  /** Runs the app's hooks and event listeners as the call's request's work (see `AppCodeRunner`). */
  appCode?: AppCodeRunner;
}

/**
 * The rules of one resource, in their order, as one pipeline around its repository's core: the read
 * stages' conditions are ANDed into every query of a call (soft delete's living documents, then the
 * row scope); each write runs the write stages' `before` in order (the hooks, then the row scope's
 * stamps and checks), then the write, then their `after` in reverse (the history, the hooks, the
 * events). A write that no stage has work for costs nothing more. A new rule: a stage file here, and
 * its line below.
 */
export class RulePipeline<D extends { _id: unknown }> {
  private readonly reads: ReadStage[] = [];
  private readonly writes: Array<WriteStage<D>> = [];
  /** The row scope's stage, if the resource has one: a bulk change and a revert check their changes against it up front. */
  readonly scope?: ScopeStage;
  readonly softDelete?: SoftDeleteStage;
  readonly history?: HistoryStage;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
  constructor(model: Model<any>, definition: RepositoryDefinition, { hooks, events, scope, read, appCode }: RuleOptions<D>) {
    const { name, idField } = definition;
    if (definition.softDelete) this.softDelete = new SoftDeleteStage(name, definition.softDelete.field);
    if (scope) this.scope = new ScopeStage(new RowScopes(name, scope));
    if (definition.history) this.history = new HistoryStage(model, definition.history, definition.fields.versionKey!);
    // Read stages: their conditions, ANDed in this order.
    if (this.softDelete) this.reads.push(this.softDelete);
    if (this.scope) this.reads.push(this.scope);
    // Write stages: `before` in this order, `after` in the reverse.
    if (events) this.writes.push(new EventsStage<D>(events, name, idField, appCode));
    if (hooks) this.writes.push(new HooksStage<D>(hooks, name, idField, read, appCode));
    if (this.scope) this.writes.push(this.scope as WriteStage<unknown> as WriteStage<D>);
    if (this.history) this.writes.push(this.history as WriteStage<unknown> as WriteStage<D>);
  }

  /** Whether some call reads fewer than every document (a row scope, soft delete). */
  get filters(): boolean {
    return this.reads.length > 0;
  }

  /** The documents `call` may read (or, `'write'`, write): every read stage's condition; `undefined`: all. */
  filter(call: CallContext, access: 'read' | 'write'): Record<string, unknown> | undefined {
    if (this.reads.length === 0) return undefined;
    if (this.reads.length === 1) return this.reads[0].filter(call, access);
    const conditions = this.reads.map((stage) => stage.filter(call, access));
    return conditions.some((condition) => condition !== undefined) ? allOf(...conditions) : undefined;
  }

  /** Whether `call` may read documents it may not write (a row scope with its own `write`). */
  writesFewer(call: CallContext): boolean {
    return this.scope?.scopes.writesFewer(call) === true;
  }

  /**
   * Runs the write `run` between the stages that have work for it: `run` is given the data as the
   * stages' `before` left it, and a `WriteRecord` where a stage keeps the state it stores; `stored`
   * finds the stored document in its result (none: nothing was written, no `after`).
   */
  async write<R>(
    write: StagedWrite,
    run: (data: Record<string, unknown> | undefined, record: WriteRecord | undefined) => Promise<R>,
    stored: (result: R, data: Record<string, unknown> | undefined) => StoredWrite<D> | null | undefined,
  ): Promise<R> {
    const { writes } = this;
    let working = 0;
    let keepsState = false;
    for (const stage of writes) {
      if (!stage.applies(write.phase)) continue;
      working++;
      keepsState ||= stage.keepsState === true;
    }
    if (working === 0) return run(write.data, undefined);
    for (const stage of writes) if (stage.before && stage.applies(write.phase)) await stage.before(write);
    const record = keepsState ? new WriteRecord() : undefined;
    const result = await run(write.data, record);
    const done = stored(result, write.data);
    if (!done) return result;
    for (let index = writes.length - 1; index >= 0; index--) {
      const stage = writes[index];
      if (stage.after && stage.applies(write.phase)) await stage.after(write, done, record);
    }
    return result;
  }
}
