import type { DiscriminatorDefinition, SubTypeDefinition } from './resource-definition.interface.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { isPlainObject } from '../query/field-path.util.js';

/**
 * Whether a path is one of a sub-type's fields: a path or nested object of its merged schema, or
 * below one of its sub-documents, arrays or Mixed fields.
 */
export function ownsField(type: Pick<SubTypeDefinition, 'schema'>, path: string): boolean {
  const { schema } = type;
  if (schema.path(path) || schema.pathType(path) === 'nested') return true;
  const segments = path.split('.');
  return segments.slice(1).some((_, index) => Boolean(schema.path(segments.slice(0, index + 1).join('.'))));
}

/**
 * The sub-type a create body names by the discriminator key (`{ kind: 'Book', ... }`): a 400
 * `MR_VALIDATION_FAILED` at the key when it is missing or names no declared sub-type. `undefined`
 * for a body that is not an object (the body's own check answers it).
 */
export function subTypeOfBody(body: unknown, discriminator: DiscriminatorDefinition): SubTypeDefinition | undefined {
  if (!isPlainObject(body)) return undefined;
  const { key, types } = discriminator;
  const value = body[key];
  const values = types.map((type) => type.value).join(', ');
  if (value === undefined || value === null) throw ModelRoutesException.validationFailed(key, `${key} is required: one of ${values}`);
  const type = types.find((candidate) => candidate.value === value);
  if (!type) throw ModelRoutesException.validationFailed(key, `${key} must be one of ${values}`);
  return type;
}

/**
 * The changes of an update, checked against the sub-type of the stored document: a field of another
 * sub-type is an unknown field (400 `MR_INVALID_BODY`), and the key cannot change the sub-type (a
 * Book stays a Book: delete it and create a Shirt); the key sent with its own value changes nothing
 * and is left out; a field the sub-type requires cannot be cleared (`null`). A document of no
 * sub-type (written without the key, by code of the app) is checked against the base's own schema,
 * and its key cannot be set.
 */
export function subTypeChanges(
  data: Record<string, unknown>,
  key: string,
  type: Pick<SubTypeDefinition, 'schema'> & { value?: string },
): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name === key) {
      if (value !== type.value) {
        const is = type.value === undefined ? 'has no sub-type' : `is a ${type.value}`;
        throw ModelRoutesException.invalidBody(key, `${key} cannot change: this document ${is}; delete it and create a ${String(value)}`);
      }
      continue;
    }
    if (!ownsField(type, name)) throw ModelRoutesException.invalidBody(name, `Unknown field '${name}'`);
    // The update's body is every sub-type's, none required there: a sub-type's required field may be left out, not cleared.
    if (value === null && type.schema.path(name)?.isRequired) throw ModelRoutesException.validationFailed(name, `${name} is required`);
    changes[name] = value;
  }
  return changes;
}
