import type { Provider, Type } from '@nestjs/common';
import { getConnectionToken, getModelToken } from '@nestjs/mongoose';
import type { Connection, Model } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { createModelDefinition } from '../factories/resource-definition.factory.js';
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

/**
 * One `ModelRepository` provider per resource, built from its model; and one per model that a
 * reference names but that is not a resource (registered with `MongooseModule.forFeature`), built
 * from the connection when the module starts, so that a reference controller is given its target
 * the same way in both cases. A model registered nowhere stops the start.
 */
export function createRepositoryProviders(definitions: ResourceDefinition[], connectionName?: string): Provider[] {
  const resources = new Set(definitions.map((definition) => definition.name));
  const referenced = new Map<string, string>();
  for (const definition of definitions) {
    for (const { targetName, field } of definition.references) {
      if (!resources.has(targetName) && !referenced.has(targetName)) referenced.set(targetName, `${definition.name}.${field}`);
    }
  }
  return [
    ...definitions.map((definition) => ({
      provide: getRepositoryToken(definition.name, connectionName),
      useFactory: (model: Model<unknown>) => new ModelRepository(model, definition),
      inject: [getModelToken(definition.name, connectionName)],
    })),
    ...[...referenced].map(([modelName, where]) => ({
      provide: getRepositoryToken(modelName, connectionName),
      useFactory: (connection: Connection) => {
        if (!connection.modelNames().includes(modelName)) {
          throw new ModelRoutesConfigError(
            'MR_CONFIG_UNKNOWN_REFERENCE',
            `${where} references '${modelName}', which is neither a resource nor a model registered with Mongoose. ` +
              `Add ${modelName} to ModelRoutesModule.forRoot({ resources }), or register it with MongooseModule.forFeature().`,
          );
        }
        const model = connection.model(modelName) as Model<Record<string, unknown>>;
        return new ModelRepository(model, createModelDefinition(model));
      },
      inject: [getConnectionToken(connectionName)],
    })),
  ];
}
