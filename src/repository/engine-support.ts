import type { OnModuleInit } from '@nestjs/common';
import type { Connection, Schema, SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import type { ResourceDefinition } from '../definitions/resource-definition.interface.js';
import { serverEngine } from './server-engine.js';

/**
 * Refuses, when the application initialises, the resources whose fields the database engine cannot
 * store: a Decimal128 at any depth on FerretDB v1, which answers such a value with a panic and a
 * dropped connection (every write would be a 503, and retrying never helps). Asked only when a
 * resource has such a field, and only of an open connection (`MongooseModule` opens it before the
 * providers initialise, unless `lazyConnection`): a database unreachable at start is not refused.
 */
export class EngineSupport implements OnModuleInit {
  constructor(
    private readonly connection: Connection,
    private readonly definitions: ReadonlyArray<Pick<ResourceDefinition, 'name' | 'schema'>>,
  ) {}

  async onModuleInit(): Promise<void> {
    const fields = this.definitions.flatMap((definition) => decimalPaths(definition.schema, '').map((path) => `${definition.name}.${path}`));
    if (fields.length === 0 || this.connection.readyState !== 1) return;
    if ((await serverEngine(this.connection)) !== 'ferretdb') return;
    throw new ModelRoutesConfigError(
      'MR_CONFIG_UNSUPPORTED_TYPE',
      `${fields.join(', ')}: Decimal128 cannot be stored by FerretDB v1, the database this app is connected to (it drops the connection on such a value). ` +
        `Store the amount as a string, or as an integer of its smallest unit (cents), or run on MongoDB.`,
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
