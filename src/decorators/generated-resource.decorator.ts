import type { GeneratedResourceOptions } from '../interfaces/generated-resource-options.interface.js';
import { ResourceMetadataStorage } from '../storages/resource-metadata.storage.js';

/**
 * Marks a Mongoose `@Schema()` class as a resource: `ModelRoutesModule.forRoot()` generates
 * its routes. Only records the options; nothing is built until `forRoot()` runs.
 *
 * @example
 * ```ts
 * @GeneratedResource({ path: 'user', plural: 'users' })
 * @Schema()
 * export class Entrepreneur {
 *   @Prop({ required: true }) niceName: string;
 * }
 * ```
 *
 * @publicApi
 */
export function GeneratedResource(options: GeneratedResourceOptions = {}): ClassDecorator {
  return (target) => {
    ResourceMetadataStorage.add(target, options);
  };
}
