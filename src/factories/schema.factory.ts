import type { Type } from '@nestjs/common';
import { SchemaFactory } from '@nestjs/mongoose';
import { Schema, type SchemaType } from 'mongoose';

/**
 * The Mongoose schema of a resource: the one the user gave, or `SchemaFactory.createForClass()`'s,
 * with two adjustments made before the model is compiled:
 *
 * - `@Prop({ type: Types.ObjectId, ref })` becomes an ObjectId path. `@nestjs/mongoose` takes
 *   `Types.ObjectId` (the BSON class, not the schema type) for a nested class and makes the path
 *   Mixed; a `ref` only makes sense on an identifier, so such a path is restored to what was meant.
 * - Every reference field, single or array, gets an index (unless it has one), so that the
 *   reverse reference routes stay fast as collections grow (an array gets a multikey index).
 */
export function createResourceSchema(resource: Type, given?: Schema): Schema {
  const schema = given ?? SchemaFactory.createForClass(resource);
  schema.eachPath((path, type) => {
    if (type.instance === 'Mixed' && type.options?.ref && !path.includes('.')) {
      const { type: _mixed, ...options } = type.options as Record<string, unknown>;
      schema.remove(path);
      schema.add({ [path]: { ...options, type: Schema.Types.ObjectId } });
    }
  });
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
