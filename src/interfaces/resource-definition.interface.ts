import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import type { ReferenceRoutesOptions, ResourceRoutesOptions } from './route-options.interface.js';
import type { ResolvedSearchOptions, SearchOptions } from './search-options.interface.js';

/** A field of type ObjectId with a `ref`: the trigger of the reference routes. */
export interface ReferenceDefinition {
  /** Field on the referencing model, e.g. `owner`. */
  field: string;
  /** Model name of the referenced model, e.g. `Entrepreneur`. */
  targetName: string;
  /** `true` for `[{ type: ObjectId, ref }]`. */
  isArray: boolean;
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
  fields: FieldRules;
  /** The search limits in force: defaults, then `forRoot`'s settings, then the resource's own. */
  search: ResolvedSearchOptions;
  /** `@GeneratedResource({ search })`. */
  ownSearch?: SearchOptions;
  /** `@GeneratedResource({ routes })`. */
  routes?: ResourceRoutesOptions;
  /** `@GeneratedResource({ references })`, by field. */
  referenceRoutes?: Record<string, ReferenceRoutesOptions>;
}

/** Which paths of a schema a client may read, filter and write. */
export interface FieldRules {
  /** Every schema path (dotted for nested objects), without hidden ones. */
  readable: ReadonlySet<string>;
  /** Paths whose sub-paths are free-form (Mixed, arrays, maps, sub-documents). */
  openPrefixes: readonly string[];
  /** Paths never returned nor queried (`select: false`). */
  hidden: ReadonlySet<string>;
  /** Top-level fields a client may send on create and update. */
  writable: ReadonlySet<string>;
  /** Top-level fields a client may never send (`_id`, version key, timestamps). */
  protected: ReadonlySet<string>;
  /** Name of the version key (`__v` by default), or undefined when disabled. */
  versionKey?: string;
  /** Allowed values of `enum` fields, as strings, to refuse impossible filter values. */
  enums: ReadonlyMap<string, ReadonlySet<string>>;
}
