import type { Type } from '@nestjs/common';
import { getConnectionToken } from '@nestjs/mongoose';

/**
 * Injection token of a resource's `ModelRepository`, built as `getModelToken()` builds a model's:
 * `CompanyRepository`, or `catalogConnection/BookRepository` on a named connection (the default
 * connection, named or not, gives the first form).
 * @param resource the resource class, or its model name
 * @param connectionName the Mongoose connection, when not the default one
 * @example moduleRef.get(getModelRepositoryToken(Company))
 *
 * @publicApi
 */
export function getModelRepositoryToken(resource: Type | string, connectionName?: string): string {
  const name = typeof resource === 'string' ? resource : resource.name;
  const connection = getConnectionToken(connectionName);
  return connection === getConnectionToken() ? `${name}Repository` : `${connection}/${name}Repository`;
}
