import type { Provider, Type } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import type { ResourceDefinition } from '../interfaces/resource-definition.interface.js';
import { ModelRepository } from './model-repository.js';

/**
 * Injection token of a resource's `ModelRepository`, in the style of `getModelToken()`.
 * @param resource the resource class, or its model name
 * @param connectionName the Mongoose connection, when not the default one
 */
export function getRepositoryToken(resource: Type | string, connectionName?: string): string {
  const name = typeof resource === 'string' ? resource : resource.name;
  return connectionName ? `${connectionName}/${name}ModelRepository` : `${name}ModelRepository`;
}

export function createRepositoryProviders(definitions: ResourceDefinition[], connectionName?: string): Provider[] {
  return definitions.map((definition) => ({
    provide: getRepositoryToken(definition.name, connectionName),
    useFactory: (model: Model<unknown>) => new ModelRepository(model, definition),
    inject: [getModelToken(definition.name, connectionName)],
  }));
}
