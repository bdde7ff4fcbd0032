import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';

/**
 * Refuses, at start-up, a resource schema with discriminators (`schema.discriminator('Book', ...)`):
 * the generated routes serve one schema per resource, so they could neither create a sub-type by
 * its key, nor check, search, document or answer its own fields. Better no start than routes that
 * half-work (issue 23, item 23).
 */
export function assertNoDiscriminators(resource: string, schema: Schema): void {
  const internal = schema as Schema & { _applyDiscriminators?: Map<string, unknown>; discriminators?: Record<string, unknown> };
  const names = [...(internal._applyDiscriminators?.keys() ?? []), ...Object.keys(internal.discriminators ?? {})];
  if (!names.length) return;
  const key = (schema.get('discriminatorKey') as string | undefined) ?? '__t';
  throw new ModelRoutesConfigError(
    'MR_CONFIG_UNSUPPORTED_SCHEMA',
    `${resource}: its schema has discriminators (${[...new Set(names)].join(', ')}, by '${key}'), which the generated routes do not support: ` +
      `they could not create a sub-type by its '${key}', nor check, search or document its own fields. ` +
      `Make each sub-type a resource of its own class (its own collection), or one resource with an enum field '${key}' and the sub-types' fields optional.`,
  );
}
