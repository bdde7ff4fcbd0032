import { Types } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import { hasNulCharacter, NUL_CHARACTER_MESSAGE } from '../utils/text.util.js';
import { MAX_ID_LENGTH } from '../write/write-body.validator.js';

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/** Casts a path identifier to the type of the resource's `id` field; a 400 `MR_INVALID_ID` when it cannot be. */
export function castPathId(id: string, { idField, schema, name }: Pick<ResourceDefinition, 'idField' | 'schema' | 'name'>): unknown {
  const type = schema.path(idField);
  const invalid = () =>
    new ModelRoutesException('MR_INVALID_ID', `'${shorten(id)}' is not a valid ${name} identifier`, [{ path: idField, message: 'invalid identifier' }]);
  if (id.length > MAX_ID_LENGTH) throw invalid();
  if (hasNulCharacter(id))
    throw new ModelRoutesException('MR_INVALID_ID', `The ${name} identifier ${NUL_CHARACTER_MESSAGE}`, [{ path: idField, message: NUL_CHARACTER_MESSAGE }]);
  if (type.instance === 'ObjectId') {
    if (!OBJECT_ID.test(id)) throw invalid();
    return new Types.ObjectId(id);
  }
  try {
    return type.cast(id);
  } catch {
    throw invalid();
  }
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
