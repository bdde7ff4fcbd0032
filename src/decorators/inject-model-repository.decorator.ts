import { Inject, type Type } from '@nestjs/common';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';

/**
 * Injects the `ModelRepository` of a resource, as `@InjectModel()` injects its Mongoose model.
 *
 * @example
 * ```ts
 * constructor(@InjectModelRepository(Company) private readonly companies: ModelRepository<Company>) {}
 * // on a named connection: @InjectModelRepository(Book, 'catalog')
 * ```
 *
 * @publicApi
 */
export function InjectModelRepository(resource: Type | string, connectionName?: string): PropertyDecorator & ParameterDecorator {
  return Inject(getModelRepositoryToken(resource, connectionName));
}
