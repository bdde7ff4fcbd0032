/** Key under which the one metadata storage is pinned on `globalThis`. */
export const METADATA_STORAGE_KEY = Symbol.for('nestjs-model-routes.metadata-storage');

/** Injection token of a registration's `serializationGroups` option, private to its module. */
export const MODEL_ROUTES_SERIALIZATION = Symbol('ModelRoutesSerialization');
