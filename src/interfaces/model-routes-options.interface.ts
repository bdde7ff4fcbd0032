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
  /** Limits of the search routes, for every resource (a resource's own `search` option wins). */
  search?: SearchOptions;
  /**
   * Give every error of the application the library's shape, through a global exception filter.
   * It is what puts malformed JSON (400), oversized bodies (413) and unknown routes (404) in that
   * shape too. With `false`, only the generated routes use it. Default true.
   */
  globalErrorFilter?: boolean;
}
