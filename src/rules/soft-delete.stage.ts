import type { CallContext } from '../call/call-context.js';
import { lifeCondition } from '../scopes/soft-delete.js';
import type { ReadStage } from './rule-stage.js';

/**
 * Soft delete (`@GeneratedResource({ softDelete })`): a call reads and writes the living documents
 * only, or, in the resource's trash (`inTrash`), the marked ones only. The delete that marks is the
 * repository's (`ModelRepository.delete`).
 */
export class SoftDeleteStage implements ReadStage {
  constructor(
    private readonly resource: string,
    readonly field: string,
  ) {}

  filter(call: CallContext): Record<string, unknown> {
    return lifeCondition(this.resource, this.field, call);
  }
}
