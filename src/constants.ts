/** Key under which the one metadata storage is pinned on `globalThis`. */
export const METADATA_STORAGE_KEY = Symbol.for('nestjs-model-routes.metadata-storage');
/** Injection token of the resolved module options. */
export const MODEL_ROUTES_OPTIONS = 'MODEL_ROUTES_OPTIONS';
