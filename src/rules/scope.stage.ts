import type { CallContext } from '../call/call-context.js';
import type { HookPhase } from '../hooks/write-hooks.js';
import type { RowScopes } from '../scopes/row-scope.js';
import type { ReadStage, StagedWrite, WriteStage } from './rule-stage.js';

/**
 * The row scope (`@GeneratedResource({ scope })`): the documents a call may read and write, ANDed
 * into every query; a create gets the scope's equality fields (a 403 `MR_OUT_OF_SCOPE` where it
 * sets one to another value); an update may not change them.
 */
export class ScopeStage implements ReadStage, WriteStage<unknown> {
  constructor(readonly scopes: RowScopes) {}

  filter(call: CallContext, access: 'read' | 'write'): Record<string, unknown> | undefined {
    return access === 'read' ? this.scopes.read(call) : this.scopes.write(call);
  }

  applies(phase: HookPhase): boolean {
    return phase !== 'delete';
  }

  before({ phase, data, call }: StagedWrite): void {
    if (!data) return;
    if (phase === 'create') this.scopes.stamp(data, call);
    else this.scopes.checkChanges(data, undefined, call);
  }
}
