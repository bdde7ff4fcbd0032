import mongoose from 'mongoose';
import type { CallContext } from '../call/call-context.js';
import type { HookPhase, WriteEvent, WriteOperation } from '../hooks/write-hooks.js';

/** One write, as the rule stages see it: what it does, to which document, for which call, with what data. */
export interface StagedWrite {
  readonly phase: HookPhase;
  readonly operation: WriteOperation;
  /** The document's identifier (its `id` field), as a path holds it; absent on a create. */
  readonly id?: string;
  /** The field of a write of one field (`addReference`, `setFile`...). */
  readonly field?: string;
  /** The call the write serves. */
  readonly call: CallContext;
  /** `false`: the app's hooks do not run for this write (`WriteOptions.hooks`); the other stages do. */
  readonly hooks: boolean;
  /** A create's data or an update's changes, as the stages before this one left them; absent for deletes and writes of one field. */
  data?: Record<string, unknown>;
}

/**
 * Runs the app's code of a rule (a hook, an event's listeners) as the work of the call's request,
 * so that the repositories it calls without a context apply that request's rules, as in a route of
 * its own (`runWithRequest`, handed by the module); the code as it is without one.
 */
export type AppCodeRunner = <R>(call: CallContext, work: () => R) => R;

/** Runs the app's code as it is: for a repository built outside the module (a test's, a model's that is no resource). */
export const RUN_APP_CODE: AppCodeRunner = (_call, work) => work();

/** A stored write: the document as the routes answer it (after a delete: as it was), and the paths it changed. */
export interface StoredWrite<D> {
  readonly doc: D;
  readonly changed?: string[];
}

/**
 * The raw document a write stored or removed (hidden fields included), noted by the repository's
 * core for the stages that keep it (`keepsState`: the history). Handed down the write explicitly.
 */
export class WriteRecord {
  state?: Record<string, unknown>;
  /** The write removed the document: `state` is it as it was. */
  removed = false;

  /** Notes `raw` (as the engine answered the write): copied now, since the core then takes the hidden fields out of the same object. */
  note(raw: object, removed = false): void {
    this.state = mongoose.mongo.BSON.deserialize(mongoose.mongo.BSON.serialize(raw));
    this.removed = removed;
  }
}

/**
 * One rule around a resource's writes (row scope, hooks, history, events): its `before` runs in
 * the order of the stages, may refuse the write (throw) or change `write.data`; its `after` runs
 * once the write is stored, in the reverse order (the last stage's first). A new rule is one file
 * with one stage, and its line in the `RulePipeline` constructor (rule-pipeline.ts).
 */
export interface WriteStage<D> {
  /** Whether the stage has work for writes of this phase now: a write no stage has work for runs with none. */
  applies(phase: HookPhase): boolean;
  /** Whether the core must note the raw state the write stores (`WriteRecord`). */
  readonly keepsState?: boolean;
  before?(write: StagedWrite): void | Promise<void>;
  after?(write: StagedWrite, stored: StoredWrite<D>, record: WriteRecord | undefined): void | Promise<void>;
}

/** One rule on the documents a call reaches (row scope, soft delete): a condition ANDed into every query. */
export interface ReadStage {
  /** The condition of the documents the call may read (`'read'`) or write (`'write'`); `undefined`: no condition. */
  filter(call: CallContext, access: 'read' | 'write'): Record<string, unknown> | undefined;
}

/**
 * What a stored write is told as: its event, and an after-hook's context (less the
 * request). The identifier is the path's, else (a create) the stored `idField`'s.
 */
export function writeEventOf(resource: string, idField: string, write: StagedWrite, stored: StoredWrite<unknown>): WriteEvent<unknown> {
  const { operation, field } = write;
  const id = write.id ?? String((stored.doc as Record<string, unknown>)[idField]);
  return {
    resource,
    operation,
    id,
    ...(field !== undefined && { field }),
    document: stored.doc as WriteEvent<unknown>['document'],
    ...(stored.changed && { changed: stored.changed }),
  };
}
