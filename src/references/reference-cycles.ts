import { Types, type Model } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ReferenceDefinition } from '../definitions/resource-definition.interface.js';
import { valueAtPath } from '../utils/object-path.util.js';

/**
 * Refuses a write that would close a cycle through a self-reference declared `acyclic` (a category
 * as its own parent, A → B → A): from the identifier written, the chain of that field is followed,
 * one document at a time, at most `maxDepth` steps; reaching the written document is a 400
 * `MR_REFERENCE_CYCLE` naming the field and the chain, and so is a chain longer than the bound
 * (a cycle could not be ruled out within it). A chain that ends (an empty field, a missing
 * document) is no cycle.
 *
 * Checked before the write, so two concurrent writes to different documents (A → B and B → A)
 * can still close a cycle between them.
 */
export async function assertNoCycles(
  model: Model<unknown>,
  references: readonly ReferenceDefinition[],
  self: Types.ObjectId,
  set: Record<string, unknown>,
  maxTimeMS: number,
): Promise<void> {
  for (const reference of references) {
    if (!reference.acyclic || !(reference.field in set)) continue;
    const chain: string[] = [self.toHexString()];
    let current = asObjectId(set[reference.field]);
    for (let step = 0; current; step++) {
      chain.push(current.toHexString());
      if (current.equals(self)) throw cycle(reference, `would make a cycle: ${chain.join(' → ')}`);
      if (step >= reference.acyclic.maxDepth) {
        throw cycle(reference, `leads to a chain longer than ${reference.acyclic.maxDepth} (acyclic.maxDepth), so a cycle cannot be ruled out`);
      }
      const next = (await model
        .findOne({ _id: current }, { [reference.field]: 1 })
        .maxTimeMS(maxTimeMS)
        .lean()
        .exec()) as Record<string, unknown> | null;
      current = next ? asObjectId(valueAtPath(next, reference.field)) : undefined;
    }
  }
}

function cycle(reference: ReferenceDefinition, text: string): ModelRoutesException {
  const message = `${reference.field} ${text}`;
  return new ModelRoutesException('MR_REFERENCE_CYCLE', `${reference.targetName}.${message}`, [{ path: reference.field, message }]);
}

function asObjectId(value: unknown): Types.ObjectId | undefined {
  if (value instanceof Types.ObjectId) return value;
  if (typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value)) return new Types.ObjectId(value);
  return undefined;
}
