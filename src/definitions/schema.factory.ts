import type { Type } from '@nestjs/common';
import { SchemaFactory } from '@nestjs/mongoose';
import type { Schema, SchemaType } from 'mongoose';
import { normaliseSchemaTypes } from './schema-types.factory.js';

/**
 * The Mongoose schema of a resource: the one the user gave, or `SchemaFactory.createForClass()`'s,
 * with two adjustments made before the model is compiled:
 *
 * - `@Prop({ type: Types.ObjectId, ref })`, `mongoose.Types.Decimal128` and the other BSON classes
 *   become the schema types they name, at every depth. `@nestjs/mongoose` takes such a class for a
 *   nested class and makes the path Mixed (see normaliseSchemaTypes).
 * - Every reference field, single or array, gets an index (unless it has one), so that the
 *   reverse reference routes stay fast as collections grow (an array gets a multikey index).
 */
export function createResourceSchema(resource: Type, given?: Schema): Schema {
  const schema = given ?? SchemaFactory.createForClass(resource);
  normaliseSchemaTypes(schema, resource.name);
  const indexed = new Set(schema.indexes().map(([fields]) => Object.keys(fields)[0]));
  schema.eachPath((path, type) => {
    const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
    const single = type.instance === 'ObjectId' && type.options?.ref;
    const array = type.instance === 'Array' && element?.instance === 'ObjectId' && (element.options?.ref ?? type.options?.ref);
    if ((single || array) && !indexed.has(path) && !type.options?.index && !element?.options?.index && !type.options?.unique) {
      schema.index({ [path]: 1 });
    }
  });
  return schema;
}

/**
 * Makes sure a unique index exists on the field that identifies instances in URLs (`id: 'slug'`),
 * so that an identifier names one document at most.
 */
export function ensureUniqueIndex(schema: Schema, field: string): void {
  if (field === '_id') return;
  const options = schema.path(field)?.options as { unique?: unknown } | undefined;
  const indexed = schema.indexes().some(([fields, index]) => Object.keys(fields).join() === field && (index as { unique?: unknown })?.unique);
  if (!options?.unique && !indexed) schema.index({ [field]: 1 }, { unique: true });
}
