import type { OnModuleInit } from '@nestjs/common';
import type { Connection, Model } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { createModelDefinition } from '../definitions/resource-definition.factory.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import { ModelRepository } from './model-repository.js';

/**
 * The repositories that reference routes lead to, by model name: every resource's, and one per
 * model that a `ref` names without being a resource (registered with `MongooseModule.forFeature`).
 * Those are built when the application initialises, not when this provider is: only then has
 * every module registered its models on the connection, whatever the order of the app's imports.
 * A model registered nowhere stops the start (`MR_CONFIG_UNKNOWN_REFERENCE`).
 */
export class ReferenceTargets implements OnModuleInit {
  private readonly repositories = new Map<string, ModelRepository>();

  /**
   * @param resources the resources' repositories
   * @param connection the connection the models are registered on
   * @param registered each referenced model that is not a resource, with the first field naming it (`Magazine.publisher`)
   * @param search the module's search settings in force, for those models' routes
   */
  constructor(
    resources: readonly ModelRepository[],
    private readonly connection: Connection,
    private readonly registered: ReadonlyMap<string, string>,
    private readonly search: ResolvedSearchOptions,
  ) {
    for (const repository of resources) this.repositories.set(repository.definition.name, repository);
  }

  onModuleInit(): void {
    for (const [modelName, where] of this.registered) {
      if (!this.connection.modelNames().includes(modelName)) {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_UNKNOWN_REFERENCE',
          `${where} references '${modelName}', which is neither a resource nor a model registered with Mongoose. ` +
            `Add ${modelName} to ModelRoutesModule.forRoot({ resources }), or register it with MongooseModule.forFeature().`,
        );
      }
      const model = this.connection.model(modelName) as Model<Record<string, unknown>>;
      this.repositories.set(modelName, new ModelRepository(model, createModelDefinition(model, this.search)));
    }
  }

  /** The repository of the model `name`; every reference's target is there once the app has initialised. */
  get(name: string): ModelRepository {
    const repository = this.repositories.get(name);
    if (!repository) throw new Error(`ReferenceTargets: no repository for '${name}' (read before the application initialised?)`);
    return repository;
  }
}
