import type { Provider } from '@nestjs/common';
import { getConnectionToken, getModelToken } from '@nestjs/mongoose';
import type { Connection, Model } from 'mongoose';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import type { ResolvedResources } from '../definitions/resource-definition.factory.js';
import { MODEL_ROUTES_RESOURCES } from '../constants.js';
import { DeleteCascades } from '../references/delete-cascade.js';
import { EngineSupport } from '../repository/engine-support.js';
import { ModelRepository } from '../repository/model-repository.js';
import { getModelRepositoryToken } from '../repository/model-repository.token.js';
import type { ResourceHooks } from '../hooks/write-hooks.js';
import { WriteEventEmitter } from '../hooks/write-event-emitter.js';
import { RowScopes } from '../scopes/row-scope.js';
import type { RowScope } from '../interfaces/row-scope.interface.js';
import { ReferenceTargets } from '../repository/reference-targets.js';
import { ambientContext, runWithRequest } from '../call/route-call.js';
import type { CallContext } from '../call/call-context.js';

/** Runs `work` as the work of the call's request (`runWithRequest`), where it has one. */
function asRequestWork<R>(call: CallContext, work: () => R): R {
  return call.request ? runWithRequest(call.request, work) : work();
}

/**
 * One `ModelRepository` provider per resource, built from its model, and the `ReferenceTargets`
 * that reference controllers read their target from: the same resource repositories, and those of
 * the models a reference names that are not resources, built from the connection when the app
 * initialises (a model registered nowhere stops the start); and the `onDelete` rules of every model
 * on the connection, read when the app initialises too; and the check that the engine can store
 * every field's type (EngineSupport).
 */
export function createRepositoryProviders(definitions: ResourceDefinition[], connectionName?: string): Provider[] {
  const resources = new Set(definitions.map((definition) => definition.name));
  const registered = new Map<string, string>();
  for (const definition of definitions) {
    for (const { targetName, field } of [...definition.references, ...(definition.embeddedReferences ?? [])]) {
      if (!resources.has(targetName) && !registered.has(targetName)) registered.set(targetName, `${definition.name}.${field}`);
    }
  }
  const tokens = definitions.map((definition) => getModelRepositoryToken(definition.name, connectionName));
  return [
    // Each with its resource as this app serves it: the settings in force.
    ...definitions.map((definition, index) => ({
      provide: tokens[index],
      useFactory: (model: Model<unknown>, { resources }: ResolvedResources, events: WriteEventEmitter, ...extras: unknown[]) => {
        const hooks = definition.hooks ? (extras.shift() as ResourceHooks) : undefined;
        const scope = definition.scope && (RowScopes.isClass(definition.scope) ? (extras.shift() as RowScope) : definition.scope);
        // Your own code's calls, which hand no call context, serve the work in progress (`ambientContext`); your hooks
        // and listeners run as their call's request's work, so the repositories they call apply its rules.
        return new ModelRepository(model, resources[index], {
          hooks,
          events: events.sinkFor(definition.path),
          scope,
          ambient: ambientContext,
          appCode: asRequestWork,
        });
      },
      inject: [
        getModelToken(definition.name, connectionName),
        MODEL_ROUTES_RESOURCES,
        WriteEventEmitter,
        ...(definition.hooks ? [definition.hooks] : []),
        ...(RowScopes.isClass(definition.scope) ? [definition.scope] : []),
      ],
    })),
    {
      provide: ReferenceTargets,
      useFactory: (connection: Connection, { search }: ResolvedResources, ...repositories: ModelRepository[]) =>
        new ReferenceTargets(repositories, connection, registered, search),
      inject: [getConnectionToken(connectionName), MODEL_ROUTES_RESOURCES, ...tokens],
    },
    WriteEventEmitter,
    {
      provide: EngineSupport,
      useFactory: (connection: Connection) => new EngineSupport(connection, definitions),
      inject: [getConnectionToken(connectionName)],
    },
    { provide: DeleteCascades, useFactory: (connection: Connection) => new DeleteCascades(connection), inject: [getConnectionToken(connectionName)] },
  ];
}
