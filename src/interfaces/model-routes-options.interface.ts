import type { Type } from '@nestjs/common';
import type { Schema } from 'mongoose';
import type { SearchOptions } from './search-options.interface.js';

/**
 * A resource listed with the Mongoose schema to use, instead of the one
 * `SchemaFactory.createForClass()` would build (for hooks, plugins or indexes added by hand).
 */
export interface ResourceRegistration {
  resource: Type;
  schema: Schema;
}

/** Options of `ModelRoutesModule.forRoot()`. */
export interface ModelRoutesModuleOptions {
  /** Classes decorated with `@GeneratedResource()` and `@Schema()`, or `{ resource, schema }` pairs. */
  resources: Array<Type | ResourceRegistration>;
  /** Name of the Mongoose connection, as given to `MongooseModule.forRoot(uri, { connectionName })`. */
  connectionName?: string;
  /** Limits of the search routes. */
  search?: SearchOptions;
}
