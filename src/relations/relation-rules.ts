import { isQueryablePath } from '../query/field-path.util.js';
import type { RelationRules, SearchRules } from '../query/search-params.interface.js';
import type { ModelRepository } from '../repository/model-repository.js';

/** The repository of a model, by name, with the settings this app resolved for it (`ReferenceTargets.get`). */
export type RepositoryOf = (model: string) => ModelRepository;

/**
 * The search rules of a request to a model's routes: the model's fields as the request's
 * serialization groups see them (a path hidden from them is as unknown as one that does not
 * exist), its search settings, and the references it may cross (`relation`), each with its
 * target's rules for the same groups, to the depth `maxExpandDepth` of the route's resource allows.
 *
 * @param repository the repository of the model the search reads
 * @param groups the request's serialization groups
 * @param repositoryOf every model's repository, for the targets
 */
export function searchRulesOf(repository: ModelRepository, groups: readonly string[] | undefined, repositoryOf: RepositoryOf): SearchRules {
  return rulesAt(repository, groups, repositoryOf, repository.definition.search.maxExpandDepth);
}

function rulesAt(repository: ModelRepository, groups: readonly string[] | undefined, repositoryOf: RepositoryOf, depthLeft: number): SearchRules {
  const { definition } = repository;
  const view = definition.serialization?.view(groups);
  const rules: SearchRules = { fields: view?.hidden.size ? view.fields : definition.fields, search: definition.search };
  const crossable = depthLeft > 0 ? definition.references.filter((reference) => reference.expand || reference.filter) : [];
  const reverse = depthLeft > 0 ? (definition.reverseExpansions ?? []) : [];
  if (crossable.length === 0 && reverse.length === 0) return rules;
  const known = new Map<string, RelationRules | undefined>();
  const reverseRelation = (name: string): RelationRules | undefined => {
    const expansion = reverse.find((candidate) => candidate.name === name);
    if (!expansion) return undefined;
    const source = repositoryOf(expansion.source);
    return {
      field: name,
      isArray: true,
      expand: true,
      filter: false,
      targetName: expansion.source,
      reverse: { source: expansion.source, field: expansion.field },
      target: rulesAt(source, groups, repositoryOf, depthLeft - 1),
    };
  };
  rules.relation = (field) => {
    if (known.has(field)) return known.get(field);
    const reference = crossable.find((candidate) => candidate.field === field);
    // A reference hidden from the request (hidden, or outside its groups' view) cannot be crossed.
    const relation =
      reference && isQueryablePath(field, rules)
        ? {
            field,
            isArray: reference.isArray,
            expand: reference.expand === true,
            filter: reference.filter === true,
            targetName: reference.targetName,
            target: rulesAt(repositoryOf(reference.targetName), groups, repositoryOf, depthLeft - 1),
          }
        : undefined;
    known.set(field, relation ?? reverseRelation(field));
    return known.get(field);
  };
  return rules;
}
