import type { OnModuleInit } from '@nestjs/common';
import type { Connection, Schema, SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import { serverEngine } from './server-engine.js';

/**
 * Refuses, when the application initialises, the resources the database engine cannot serve as
 * declared, on FerretDB v1:
 *
 * - a Decimal128 field at any depth, which FerretDB answers with a panic and a dropped connection
 *   (every write would be a 503, and retrying never helps);
 * - an index declared in a sub-type's own schema (`index`, `unique`, `schema.index()`): Mongoose
 *   builds it as a partial index on the key, which FerretDB v1 refuses to create, and the model's
 *   `init()` fails where no one sees it, so a `unique` would silently not hold.
 *
 * Asked only when a resource has such a field, and only of an open connection (`MongooseModule`
 * opens it before the providers initialise, unless `lazyConnection`): a database unreachable at
 * start is not refused.
 */
export class EngineSupport implements OnModuleInit {
  constructor(
    private readonly connection: Connection,
    private readonly definitions: ReadonlyArray<Pick<ResourceDefinition, 'name' | 'schema' | 'discriminator'>>,
  ) {}

  async onModuleInit(): Promise<void> {
    const decimals = this.definitions.flatMap((definition) => decimalPaths(definition.schema, '').map((path) => `${definition.name}.${path}`));
    const subTypeIndexes = this.definitions.flatMap(({ name, discriminator }) =>
      (discriminator?.types ?? []).flatMap((type) => type.indexed.map((field) => `${name} (sub-type ${type.name}).${field}`)),
    );
    if ((decimals.length === 0 && subTypeIndexes.length === 0) || this.connection.readyState !== 1) return;
    if ((await serverEngine(this.connection)) !== 'ferretdb') return;
    if (decimals.length)
      throw new ModelRoutesConfigError(
        'MR_CONFIG_UNSUPPORTED_TYPE',
        `${decimals.join(', ')}: Decimal128 cannot be stored by FerretDB v1, the database this app is connected to ` +
          `(it drops the connection on such a value). Store the amount as a string, or as an integer of its smallest unit (cents), or run on MongoDB.`,
      );
    throw new ModelRoutesConfigError(
      'MR_CONFIG_UNSUPPORTED_INDEX',
      `${subTypeIndexes.join(', ')}: an index declared in a sub-type is built by Mongoose as a partial index on the discriminator key, ` +
        `which FerretDB v1, the database this app is connected to, cannot create (so a unique one would not hold). ` +
        `Declare the field and its index on the base schema, or run on MongoDB.`,
    );
  }
}

/** The paths of Decimal128 values in a schema, at every depth (sub-documents, arrays, Map values). */
function decimalPaths(schema: Schema, prefix: string): string[] {
  const paths: string[] = [];
  schema.eachPath((path, type) => {
    const full = prefix + path;
    let leaf: SchemaType | undefined = type;
    // `[Decimal128]`, `[[Decimal128]]`: the innermost element.
    while (leaf?.instance === 'Array' && !(leaf as SchemaType & { schema?: Schema }).schema)
      leaf = (leaf as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
    if (leaf?.instance === 'Decimal128') paths.push(full);
    const sub = (type as SchemaType & { schema?: Schema }).schema;
    if (sub) paths.push(...decimalPaths(sub, `${full}.`));
  });
  return paths;
}
