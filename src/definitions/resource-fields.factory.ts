import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { GeneratedResourceOptions } from '../interfaces/generated-resource-options.interface.js';
import type { ResourceDefinition } from './resource-definition.interface.js';
import { SerializationViews, excludedPaths } from '../serialization/serialization-views.js';
import { ResourceMetadataStorage } from '../storages/resource-metadata.storage.js';
import { createFieldRules, findReferences, type FieldOptions } from './field-rules.factory.js';

export function resourceMetadata(resource: Type): GeneratedResourceOptions {
  const metadata = ResourceMetadataStorage.get(resource);
  if (!metadata) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_NOT_A_RESOURCE',
      `${resource.name} is listed in ModelRoutesModule.forRoot({ resources }) but has no @GeneratedResource(). ` +
        `Add @GeneratedResource() above @Schema() on ${resource.name}.`,
    );
  }
  return metadata;
}

/**
 * The schema's field rules with the resource's own lists (each field of which the schema must have)
 * and class-transformer's decorators (see `createSerializedFieldRules`).
 */
export function resourceFieldRules(resource: Type, schema: Schema, metadata: GeneratedResourceOptions): Pick<ResourceDefinition, 'fields' | 'serialization'> {
  for (const option of ['hidden', 'readonly', 'writeOnly'] as const) {
    for (const field of metadata[option] ?? []) {
      if (!schema.path(field) && schema.pathType(field) !== 'nested') {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_UNKNOWN_FIELD',
          `${resource.name}: @GeneratedResource({ ${option}: ['${field}'] }) names a field the schema does not have. ` +
            `Check the spelling, or remove it from ${option}.`,
        );
      }
    }
  }
  return createSerializedFieldRules(resource, schema, { hidden: metadata.hidden, readonly: metadata.readonly, writeOnly: metadata.writeOnly });
}

/**
 * The field rules of a resource, with the paths that class-transformer leaves out for every group
 * (`@Exclude()`) hidden, and the views of the paths only some groups see (`@Expose({ groups })`).
 */
function createSerializedFieldRules(resource: Type, schema: Schema, options: FieldOptions): Pick<ResourceDefinition, 'fields' | 'serialization'> {
  const rules = createFieldRules(schema, options);
  const excluded = excludedPaths(resource, schema, rules.readable);
  const fields = excluded.length ? createFieldRules(schema, { ...options, hidden: [...(options.hidden ?? []), ...excluded] }) : rules;
  const serialization = SerializationViews.of(resource, schema, fields);
  for (const reference of findReferences(schema, (field) => `${resource.name}.${field}`)) {
    if (serialization?.groupOnly.has(reference.field)) {
      // Its reference routes would answer what the field holds, and the reverse routes filter on it.
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `${resource.name}.${reference.field}: a reference field cannot be shown to some groups only (@Expose({ groups })); ` +
          `its reference routes would show it to every client. Hide it from all (@Exclude()), or expose it to all.`,
      );
    }
  }
  return { fields, serialization };
}
