import type { ReferenceDefinition } from '../definitions/resource-definition.interface.js';

/**
 * Every path a client may expand from a model's documents (`owner`, `owner.company`), to the depth
 * given: each hop a reference declared `expand: true` by the model it starts from. For the docs.
 *
 * @param referencesOf a model's references, by its name (none for a model that is not a resource)
 */
export function expandablePaths(model: string, referencesOf: (model: string) => readonly ReferenceDefinition[] | undefined, depth: number): string[] {
  if (depth <= 0) return [];
  return (referencesOf(model) ?? [])
    .filter((reference) => reference.expand)
    .flatMap((reference) => [reference.field, ...expandablePaths(reference.targetName, referencesOf, depth - 1).map((path) => `${reference.field}.${path}`)]);
}
