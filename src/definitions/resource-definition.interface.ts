import type { RowScope, RowScopeFunction } from '../interfaces/row-scope.interface.js';
import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import type { ResourceDtos } from '../dto/resource-dto.factory.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import type { FileFieldDefinition } from '../files/file-options.js';
import type {
  ElementRoutesOptions,
  FileRoutesOptions,
  ReferenceRoutesOptions,
  ResourceRoutesOptions,
  RouteVersion,
} from '../interfaces/route-options.interface.js';
import type { ResolvedSearchOptions } from '../interfaces/search-options.interface.js';
import type { FieldRules } from '../metadata/field-rules.interface.js';

/** A field of type ObjectId with a `ref`: the trigger of the reference routes. */
export interface ReferenceDefinition {
  /** Field on the referencing model, e.g. `owner`. */
  field: string;
  /** Model name of the referenced model, e.g. `Entrepreneur`. */
  targetName: string;
  /** `true` for `[{ type: ObjectId, ref }]`. */
  isArray: boolean;
  /** The field of the referenced model that identifies it in URLs (`_id`, or e.g. `slug`): accepted on write too. */
  targetIdField: string;
  /** Whether writes must name existing documents (`references: { owner: { checkExists } }`). */
  checkExists: boolean;
  /** Whether clients may expand it (`references: { owner: { expand } }`); never for a reference inside sub-documents. */
  expand?: boolean;
  /** Whether searches may hold conditions on its target's fields (`references: { owner: { filter } }`); never inside sub-documents. */
  filter?: boolean;
  /** The name under which its targets may expand the documents that reference them (`references: { owner: { expandReverse } }`). */
  expandReverse?: string;
  /** A self-reference declared `@Prop({ ..., acyclic: true })`: writes that would close a cycle are refused. */
  acyclic?: { maxDepth: number };
}

/** The documents of `source` whose reference `field` names a document: what `expandReverse` names. */
export interface ReverseExpansionDefinition {
  /** The name clients expand (`companies`). */
  name: string;
  /** The referencing resource (`Company`). */
  source: string;
  /** Its reference field (`owner`). */
  field: string;
}

/**
 * An array of sub-documents with element routes: a top-level field a client may write, whose
 * elements have an `_id` (Mongoose's default; not with `_id: false`), that is not a file field.
 */
export interface ElementFieldDefinition {
  /** The array, e.g. `vaccinations`. */
  field: string;
  /** How many elements `addElement` lets it hold (`maxElements`). */
  maxElements: number;
}

/** A sub-type of a resource with discriminators: how its documents are marked, and what a client may write to it. */
export interface SubTypeDefinition {
  /** The discriminator's model name, e.g. `Book`. */
  name: string;
  /** The value of the key that marks its documents, e.g. `'Book'`. */
  value: string;
  /** Its schema as Mongoose merges it: the base's fields and its own. */
  schema: Schema;
  /** The fields its own indexes cover: Mongoose builds them with a `partialFilterExpression` on the key, which FerretDB v1 cannot create. */
  indexed: string[];
  /** The bodies of its create and update: `BookCreateDto`, `BookUpdateDto`. */
  dtos: Pick<ResourceDtos, 'create' | 'update'>;
}

/**
 * The sub-types of a resource whose schema has discriminators (`ProductSchema.discriminator('Book', ...)`):
 * one resource serves them all; a create picks the sub-type by the key.
 */
export interface DiscriminatorDefinition {
  /** The discriminator key (`discriminatorKey`, default `__t`). */
  key: string;
  types: SubTypeDefinition[];
}

/**
 * What the library knows about one resource, read once at startup from its class, its schema and
 * the synchronous options (`forRoot`'s extras): the plan's, shared by every app built from it. The
 * settings an app serves it with are not here: see `ResolvedResource`.
 */
export interface ResourceDefinition {
  target: Type;
  /** Mongoose model name: the class name. */
  name: string;
  path: string;
  plural: string;
  /** Field that identifies an instance in URLs. */
  idField: string;
  /** Name of the path parameter, e.g. `company_id`. */
  idParam: string;
  /**
   * The schema its fields are read from. With discriminators, the union of the base's fields and every
   * sub-type's (theirs never required); the model is compiled from `modelSchema`.
   */
  schema: Schema;
  /** With discriminators: the base schema with its sub-types, as Mongoose compiles the model. */
  modelSchema?: Schema;
  /** Its sub-types, when its schema has discriminators. */
  discriminator?: DiscriminatorDefinition;
  references: ReferenceDefinition[];
  /**
   * The references inside its sub-documents (`vaccinations.vet`), at any depth: checked on write
   * like `references`, with no routes of their own.
   */
  embeddedReferences?: ReferenceDefinition[];
  /** Its `@FileProp()` fields. */
  files: FileFieldDefinition[];
  /** Its arrays of sub-documents that have element routes. */
  elements: ElementFieldDefinition[];
  fields: FieldRules;
  /** The classes of the bodies of its routes: the user's (`dto` option) or the generated ones. */
  dtos: ResourceDtos;
  /**
   * What class-transformer's `@Expose({ groups })` and `@Transform()` on the class change in its
   * responses, per group set; absent when they change nothing (`@Exclude()`d paths are in `fields.hidden`).
   */
  serialization?: SerializationViews;
  /**
   * The documents that reference this resource, as it may expand them (`?expand=companies`): one per
   * reference field of another resource that declared `expandReverse`.
   */
  reverseExpansions?: ReverseExpansionDefinition[];
  /** `@GeneratedResource({ version })`, else `forRoot({ version })`: the version of its routes that give none. */
  version?: RouteVersion;
  /** `@GeneratedResource({ routes })`. */
  routes?: ResourceRoutesOptions;
  /** `@GeneratedResource({ references })`, by field. */
  referenceRoutes?: Record<string, ReferenceRoutesOptions>;
  /** `@GeneratedResource({ files })`, by field. */
  fileRoutes?: Record<string, FileRoutesOptions>;
  /** `@GeneratedResource({ elements })`, by field. */
  elementRoutes?: Record<string, ElementRoutesOptions>;
  /** `@GeneratedResource({ hooks })`: the provider class of its lifecycle hooks. */
  hooks?: Type;
  /** `@GeneratedResource({ scope })`: its row scope, a provider class or a function. */
  scope?: Type<RowScope> | RowScopeFunction;
  /** `@GeneratedResource({ softDelete })`: the field that marks a deleted document, if the resource has soft delete. */
  softDelete?: { field: string };
  /** `@GeneratedResource({ history })`: how many versions of a document are kept, and who writes. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  history?: { keep: number; actor?: (request: any) => string | undefined };
}

/**
 * The settings one app serves a resource with: its own options (`@GeneratedResource({ search,
 * requireIfMatch })`) over the module's settings (`forRoot`'s, or `forRootAsync`'s factory's),
 * over the defaults. Resolved once per app, when the settings are known (`resolveResources`).
 */
export interface ResourceSettings {
  /** The search limits in force. */
  search: ResolvedSearchOptions;
  /** Whether its writes require `If-Match`. */
  requireIfMatch: boolean;
}

/**
 * A resource as one app serves it: the plan's definition with the settings in force in that app.
 * A new object per app; the plan's definition is never changed.
 */
export interface ResolvedResource extends ResourceDefinition, ResourceSettings {}
