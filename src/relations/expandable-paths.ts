import type { ReferenceDefinition, ReverseExpansionDefinition } from '../definitions/resource-definition.interface.js';

/** What `expandablePaths` reads of a model: its references, and the reverse paths others declared to it. */
export interface ExpandableModel {
  references: readonly ReferenceDefinition[];
  reverseExpansions?: readonly ReverseExpansionDefinition[];
}

/**
 * Every path a client may expand from a model's documents (`owner`, `owner.company`, `companies`),
 * to the depth given: each hop a reference declared `expand: true` by the model it starts from, or a
 * reverse path declared with `expandReverse`. For the docs.
 *
 * @param modelOf a model's definition, by its name (none for a model that is not a resource)
 */
export function expandablePaths(model: string, modelOf: (model: string) => ExpandableModel | undefined, depth: number): string[] {
  const definition = depth > 0 ? modelOf(model) : undefined;
  if (!definition) return [];
  const hops = [
    ...definition.references.filter((reference) => reference.expand).map((reference) => [reference.field, reference.targetName] as const),
    ...(definition.reverseExpansions ?? []).map((reverse) => [reverse.name, reverse.source] as const),
  ];
  return hops.flatMap(([field, target]) => [field, ...expandablePaths(target, modelOf, depth - 1).map((path) => `${field}.${path}`)]);
}
