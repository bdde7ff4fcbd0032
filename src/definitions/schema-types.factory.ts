import mongoose, { Schema, type SchemaType } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';

/** The BSON classes Mongoose has a schema type of the same name for (it reads `type: Types.Decimal128` by that name). */
const SCHEMA_TYPE_OF_BSON: Readonly<Record<string, unknown>> = {
  ObjectId: Schema.Types.ObjectId,
  Decimal128: Schema.Types.Decimal128,
  UUID: Schema.Types.UUID,
  Double: Schema.Types.Double,
  Int32: Schema.Types.Int32,
};

/** TypeScript types that a Mixed path (any value) contradicts: the `@Prop` type was not read as the field was meant. */
const SCALARS = new Set<unknown>([String, Number, Boolean, Date]);

/** One `@Prop()` as `@nestjs/mongoose` recorded it: its class, its name and its options object. */
interface PropRecord {
  target: Function;
  propertyKey: string;
  options: unknown;
}

/**
 * Restores, at every depth (nested objects, sub-documents, arrays of sub-documents), the paths that
 * `@nestjs/mongoose` turned into Mixed paths although Mongoose itself would have typed them.
 *
 * `@nestjs/mongoose` reads a class given as `type` (`Types.ObjectId`, `mongoose.Types.Decimal128`,
 * or the TypeScript type of a `@Prop()` without `type`) as a nested class; a BSON class has no
 * `@Prop()`s, so the path becomes Mixed and stores any value. What it was meant to be is read from:
 *
 * - a `ref`: a reference holds an identifier, so such a path (or an array of them) is an ObjectId path;
 * - else the declared TypeScript type of the property (`balance: Types.Decimal128`): the BSON
 *   classes Mongoose has a schema type for (ObjectId, Decimal128, UUID, Double, Int32) become it;
 *   another BSON class (Long, Binary, Timestamp...) is a start-up error naming `Class.field`;
 * - a Mixed path declared as a string, number, boolean or date is a start-up error naming
 *   `Class.field` and the fix: its `type` is a class that was read as a nested class.
 *
 * The property behind a path is found through the options object `@Prop()` recorded, which the
 * schema keeps in its definition (`schema.obj`). Changes the schemas in place, keeping the order
 * of their paths.
 */
export function normaliseSchemaTypes(schema: Schema, owner: string): void {
  normalise(schema, owner, propRecords(), new Set());
}

function normalise(schema: Schema, owner: string, records: ReadonlyMap<unknown, PropRecord>, seen: Set<Schema>): void {
  if (seen.has(schema)) return; // a recursive schema (`children: [this]`)
  seen.add(schema);
  const definition = (schema as Schema & { obj?: Record<string, unknown> }).obj ?? {};
  const changes: Array<[string, Record<string, unknown>]> = [];
  schema.eachPath((path, type) => {
    const sub = (type as SchemaType & { schema?: Schema }).schema;
    if (sub) {
      normalise(sub, `${owner}.${path}`, records, seen);
      refreshCopies(schema, path, type, sub);
    }
    const record = path.includes('.') ? undefined : records.get(definition[path]);
    const where = record ? `${record.target.name}.${record.propertyKey}` : `${owner}.${path}`;
    const { type: _given, ...options } = type.options as Record<string, unknown>;
    if (type.instance === 'Mixed') {
      const intended = options.ref ? Schema.Types.ObjectId : record ? declaredSchemaType(record, where, _given) : undefined;
      if (intended) changes.push([path, { ...options, type: intended }]);
    } else if (type.instance === 'Array' && options.ref) {
      const element = (type as SchemaType & { embeddedSchemaType?: SchemaType }).embeddedSchemaType;
      // `{ type: [Types.ObjectId], ref }`: an array of identifiers.
      if (element?.instance === 'Mixed') changes.push([path, { ...options, type: [Schema.Types.ObjectId] }]);
    }
  });
  // `path()` on an existing path replaces its type where it stands, so the fields keep their order.
  for (const [path, options] of changes) schema.path(path, options);
}

/**
 * A schema keeps copies of the paths of its sub-documents (`subpaths`, `singleNestedPaths`: what
 * casts `$set: { 'lastVisit.vet': ... }` and queries on `vaccinations.vet`), made when the
 * sub-document's path was added: they are pointed at the sub-schema's paths as they are now.
 */
function refreshCopies(schema: Schema, path: string, type: SchemaType, sub: Schema): void {
  const internals = schema as unknown as Record<'subpaths' | 'singleNestedPaths', Record<string, unknown> | undefined>;
  for (const copies of [internals.subpaths, internals.singleNestedPaths]) {
    for (const key of Object.keys(copies ?? {})) {
      if (!key.startsWith(`${path}.`) || typeof copies![key] !== 'object') continue;
      const fresh = sub.path(key.slice(path.length + 1)) as (SchemaType & { $parentSchemaDocArray?: SchemaType }) | undefined;
      if (!fresh || fresh === copies![key]) continue;
      if ((type as SchemaType & { $isMongooseDocumentArray?: boolean }).$isMongooseDocumentArray) fresh.$parentSchemaDocArray ??= type;
      copies![key] = fresh;
    }
  }
}

/** The schema type the TypeScript type of a Mixed `@Prop()` asks for, `undefined` where Mixed fits it. */
function declaredSchemaType(record: PropRecord, where: string, given: unknown): unknown {
  // Only a `type` that @nestjs/mongoose made of a class (`{}`); an explicit `Schema.Types.Mixed` is meant.
  if (given === null || typeof given !== 'object' || Array.isArray(given)) return undefined;
  const declared: unknown = Reflect.getMetadata?.('design:type', record.target.prototype, record.propertyKey);
  if (typeof declared !== 'function') return undefined;
  const bson = bsonTypeName(declared);
  if (bson) {
    const schemaType = SCHEMA_TYPE_OF_BSON[bson];
    if (schemaType) return schemaType;
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${where}: Mongoose has no schema type for the BSON class ${declared.name}, so the field would store any value (Mixed). ` +
        `Use one of ${Object.keys(SCHEMA_TYPE_OF_BSON)
          .map((name) => `mongoose.Schema.Types.${name}`)
          .join(', ')}, or mongoose.Schema.Types.Mixed.`,
    );
  }
  if (SCALARS.has(declared)) {
    throw new ModelRoutesConfigError(
      'MR_CONFIG_INVALID_OPTION',
      `${where}: declared as ${declared.name.toLowerCase()}, but its @Prop() type makes it Mixed (any value is stored): ` +
        `@nestjs/mongoose reads a class given as \`type\` (such as mongoose.Types.Decimal128) as a nested class. ` +
        `Give the schema type (\`type: mongoose.Schema.Types.Decimal128\`), or \`type: mongoose.Schema.Types.Mixed\` if any value is meant.`,
    );
  }
  return undefined;
}

/** `'Decimal128'` for `mongoose.Types.Decimal128` and every other BSON value class (they carry `_bsontype`), else `undefined`. */
function bsonTypeName(declared: Function): string | undefined {
  if (declared === mongoose.Types.Buffer) return undefined;
  const tag = (declared.prototype as { _bsontype?: unknown } | undefined)?._bsontype;
  if (typeof tag !== 'string') return undefined;
  // UUID is a Binary subtype to BSON; Mongoose has a schema type of the class's own name.
  return declared.name === 'UUID' ? 'UUID' : tag === 'ObjectID' ? 'ObjectId' : tag;
}

/**
 * The `@Prop()`s `@nestjs/mongoose` has recorded, by their options object. Its metadata storage is
 * pinned on `globalThis` (one per process, whatever copy of the package is loaded); it is only read.
 */
function propRecords(): Map<unknown, PropRecord> {
  const storage = (globalThis as { MongoTypeMetadataStorage?: { properties?: unknown } }).MongoTypeMetadataStorage;
  const properties = Array.isArray(storage?.properties) ? (storage.properties as PropRecord[]) : [];
  return new Map(properties.filter((record) => record.options && typeof record.options === 'object').map((record) => [record.options, record]));
}
