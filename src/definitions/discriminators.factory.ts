import type { Type } from '@nestjs/common';
import { SchemaFactory } from '@nestjs/mongoose';
import { Mongoose, type Model, type Schema, type SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { DiscriminatorRegistration } from '../interfaces/model-routes-options.interface.js';
import { normaliseSchemaTypes } from './schema-types.factory.js';

/** A sub-type as Mongoose compiles it: the base's fields merged with its own. */
export interface CompiledSubType {
  name: string;
  value: string;
  /** The merged schema (base and own fields, the key set to `value`), compiled apart from the app's connection. */
  schema: Schema;
  /** The fields of the indexes its own schema declares (`index`, `unique`, `schema.index()`), which Mongoose builds as partial indexes on the key. */
  indexed: string[];
}

type WithDiscriminators = Schema & {
  _applyDiscriminators?: Map<string, { schema: Schema; options?: { value?: string } }>;
};

/** The sub-types the library declared on each base schema. */
const declaredByLibrary = new WeakMap<Schema, Set<string>>();

/**
 * Records on the base schema the sub-types declared with the library (`@GeneratedResource({
 * discriminators: [Book, Shirt] })`, or `forRoot({ resources: [{ resource, discriminators }] })`),
 * the way Mongoose's own `schema.discriminator(name, schema)` does: the model compiled from the
 * schema then has them, whoever compiles it.
 */
export function declareDiscriminators(resource: Type, schema: Schema, classes: readonly Type[] = [], given: readonly DiscriminatorRegistration[] = []): void {
  const declared = [
    ...classes.map((type): DiscriminatorRegistration => {
      if (typeof type !== 'function') {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_INVALID_OPTION',
          `${resource.name}: @GeneratedResource({ discriminators }) lists classes decorated with @Schema(), one per sub-type.`,
        );
      }
      return { name: type.name, schema: SchemaFactory.createForClass(type) };
    }),
    ...given,
  ];
  const twice = declared.find(({ name }, index) => declared.findIndex((other) => other.name === name) !== index);
  if (twice) throw declaredTwice(resource, twice.name);
  const ours = declaredByLibrary.get(schema) ?? new Set<string>();
  declaredByLibrary.set(schema, ours);
  for (const { name, schema: own, value } of declared) {
    // A schema given to forRoot again (a second app of the same options) has them already.
    if (ours.has(name)) continue;
    if ((schema as WithDiscriminators)._applyDiscriminators?.has(name)) throw declaredTwice(resource, name);
    schema.discriminator(name, own, value === undefined ? undefined : { value });
    ours.add(name);
  }
}

function declaredTwice(resource: Type, name: string): ModelRoutesConfigError {
  return new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${resource.name}: the sub-type ${name} is declared twice; declare each sub-type once.`);
}

/**
 * The sub-types a base schema has (declared by `schema.discriminator()`, Mongoose's way, or by the
 * library's options), compiled as Mongoose compiles them, on a Mongoose instance of its own (so the
 * app's connection and the schema are untouched): `undefined` when it has none.
 */
export function compileSubTypes(resource: Type, schema: Schema): { key: string; types: CompiledSubType[] } | undefined {
  const declared = (schema as WithDiscriminators)._applyDiscriminators;
  if (!declared?.size) return undefined;
  const indexed = new Map<string, string[]>();
  for (const [name, { schema: own }] of declared) {
    normaliseSchemaTypes(own, `${resource.name} (${name})`);
    // Read before Mongoose merges the base into it: the sub-type's own indexes only.
    indexed.set(name, [...new Set(own.indexes().flatMap(([fields]) => Object.keys(fields)))]);
  }
  const key = (schema.get('discriminatorKey') as string | undefined) ?? '__t';
  let model: Model<unknown>;
  try {
    model = new Mongoose().model(resource.name, schema.clone()) as unknown as Model<unknown>;
  } catch (error) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${resource.name}: Mongoose refuses its sub-types: ${(error as Error).message}. Check the sub-types' schemas and options.`,
    );
  }
  const types = [...declared.keys()].map((name): CompiledSubType => {
    const compiled = model.discriminators![name];
    const value = (compiled.schema as Schema & { discriminatorMapping: { value: unknown } }).discriminatorMapping.value;
    if (typeof value !== 'string') {
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `${resource.name}: the sub-type ${name} has a key value that is not a string; give it a string value.`,
      );
    }
    return { name, value, schema: compiled.schema, indexed: indexed.get(name)! };
  });
  return { key, types };
}

/**
 * One schema holding the base's fields and every sub-type's, the sub-types' fields never required
 * (a `Book` has no `size`), and the key, an enum of the sub-types' values: what reads, searches,
 * field rules and update bodies of the resource are checked against. The model itself is compiled
 * from the base schema and its discriminators. A path two sub-types declare with different types
 * stops the start: a filter on it could not be cast for both.
 */
export function unionSchema(resource: Type, base: Schema, key: string, types: readonly CompiledSubType[]): Schema {
  const union = base.clone() as WithDiscriminators;
  union._applyDiscriminators = undefined;
  const owners = new Map<string, { name: string; instance: string }>();
  for (const type of types) {
    type.schema.eachPath((path, schemaType) => {
      if (path === key) return;
      const existing = union.path(path);
      const owner = owners.get(path);
      if (existing && !owner) return; // a field of the base
      if (owner && owner.instance !== schemaType.instance) {
        throw new ModelRoutesConfigError(
          'MR_CONFIG_INVALID_OPTION',
          `${resource.name}: the sub-types ${owner.name} and ${type.name} both have a field '${path}', ` +
            `of types ${owner.instance} and ${schemaType.instance}. Give it one type, or two names.`,
        );
      }
      if (owner) return;
      owners.set(path, { name: type.name, instance: schemaType.instance });
      // `clone()` is public in Mongoose, missing from its types.
      const copy = (schemaType as SchemaType & { clone(): SchemaType }).clone();
      copy.required(false);
      delete (copy.options as { required?: unknown }).required;
      union.path(path, copy);
    });
  }
  const values = types.map((type) => type.value);
  const keyPath = union.path(key);
  const keyOptions = { ...(keyPath?.options as object), type: String, enum: values };
  delete (keyOptions as { default?: unknown }).default;
  union.remove(key);
  union.add({ [key]: keyOptions });
  return union;
}
