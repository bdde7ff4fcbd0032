import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import type { ResourceDtos } from '../dto/resource-dto.factory.js';
import type { SerializationViews } from '../serialization/serialization-views.js';
import type { FileFieldDefinition } from '../files/file-options.js';
import type { ElementRoutesOptions, FileRoutesOptions, ReferenceRoutesOptions, ResourceRoutesOptions, RouteVersion } from '../interfaces/route-options.interface.js';
import type { ResolvedSearchOptions, SearchOptions } from '../interfaces/search-options.interface.js';
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
  /** A self-reference declared `@Prop({ ..., acyclic: true })`: writes that would close a cycle are refused. */
  acyclic?: { maxDepth: number };
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

/** What the library knows about one resource, read once at startup. */
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
  schema: Schema;
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
  /** The search limits in force: defaults, then `forRoot`'s settings, then the resource's own. */
  search: ResolvedSearchOptions;
  /** `@GeneratedResource({ search })`. */
  ownSearch?: SearchOptions;
  /** Whether its writes require `If-Match`: the resource's option, else the settings'. */
  requireIfMatch: boolean;
  /** `@GeneratedResource({ requireIfMatch })`. */
  ownRequireIfMatch?: boolean;
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
}
