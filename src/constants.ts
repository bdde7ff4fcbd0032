/** Key under which the one metadata storage is pinned on `globalThis`. */
export const METADATA_STORAGE_KEY = Symbol.for('nestjs-model-routes.metadata-storage');
