import type { ResolvedResource } from './resource-definition.interface.js';

/** What a repository needs to know of its model: a resource's definition, or a plain model's. */
export type RepositoryDefinition = Pick<ResolvedResource, 'name' | 'idField' | 'schema' | 'fields' | 'search' | 'references'> &
  Partial<
    Pick<
      ResolvedResource,
      'dtos' | 'requireIfMatch' | 'files' | 'embeddedReferences' | 'serialization' | 'reverseExpansions' | 'softDelete' | 'history' | 'discriminator'
    >
  >;
