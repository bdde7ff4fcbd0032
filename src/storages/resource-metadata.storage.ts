import { METADATA_STORAGE_KEY } from '../constants.js';
import type { GeneratedResourceOptions } from '../interfaces/generated-resource-options.interface.js';

/**
 * The one record of `@GeneratedResource()` calls. Decorators write it; factories read it.
 * Pinned on `globalThis` so two copies of the package (e.g. linked during development)
 * still share one record.
 */
export class ResourceMetadataStorageHost {
  private readonly resources = new Map<Function, GeneratedResourceOptions>();

  add(target: Function, options: GeneratedResourceOptions): void {
    this.resources.set(target, { ...options });
  }

  get(target: Function): GeneratedResourceOptions | undefined {
    return this.resources.get(target);
  }

  /** The options of the resource whose class (and so model) has this name. */
  getByName(name: string): GeneratedResourceOptions | undefined {
    for (const [target, options] of this.resources) if (target.name === name) return options;
    return undefined;
  }
}

const host = globalThis as { [METADATA_STORAGE_KEY]?: ResourceMetadataStorageHost };
export const ResourceMetadataStorage: ResourceMetadataStorageHost = (host[METADATA_STORAGE_KEY] ??= new ResourceMetadataStorageHost());
