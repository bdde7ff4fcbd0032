import { Inject, type Type } from '@nestjs/common';
import { getRepositoryToken } from '../repository/model-repository.providers.js';

/**
 * Injects the `ModelRepository` of a resource.
 *
 * @example
 * ```ts
 * constructor(@InjectRepository(Company) private readonly companies: ModelRepository<Company>) {}
 * ```
 */
export function InjectRepository(resource: Type | string, connectionName?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getRepositoryToken(resource, connectionName));
}
