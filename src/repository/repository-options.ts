import type { CallContext } from '../call/call-context.js';
import type { ResourceHooks, WriteEventSink } from '../hooks/write-hooks.js';
import type { RowScope, RowScopeFunction } from '../interfaces/row-scope.interface.js';
import type { AppCodeRunner } from '../rules/rule-stage.js';

/** What a repository is built with, besides its model and definition. */
export interface RepositoryOptions<T> {
  /** The resource's lifecycle hooks, run around every write (see `ResourceHooks`). */
  hooks?: ResourceHooks<T>;
  /** Where to emit the events of its stored writes (see `WriteEvent`). */
  events?: WriteEventSink;
  /** Its row scope (see `RowScope`). */
  scope?: RowScope | RowScopeFunction;
  /** The context of the work in progress, for your own code's calls, which hand none (the module gives `ambientContext`). */
  ambient?: () => CallContext | undefined;
  /** Runs the app's hooks and event listeners as the work of the call's request (the module gives one with `runWithRequest`). */
  appCode?: AppCodeRunner;
}
