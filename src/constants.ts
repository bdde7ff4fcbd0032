/** Key under which the one metadata storage is pinned on `globalThis`. */
export const METADATA_STORAGE_KEY = Symbol.for('nestjs-model-routes.metadata-storage');

/** Injection token of the route table, for tooling (`npm run routes`), the 405 answers and tests. */
export const MODEL_ROUTES_TABLE = 'MODEL_ROUTES_TABLE';
