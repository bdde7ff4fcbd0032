import type { ResourceDefinition } from './resource-definition.interface.js';

/** What a repository needs to know of its model: a resource's definition, or a plain model's. */
export type RepositoryDefinition = Pick<ResourceDefinition, 'name' | 'idField' | 'schema' | 'fields' | 'search' | 'references'> &
  Partial<Pick<ResourceDefinition, 'dtos' | 'requireIfMatch' | 'files' | 'embeddedReferences'>>;
