/** Key under which the one metadata storage is pinned on `globalThis`. */
export const METADATA_STORAGE_KEY = Symbol.for('nestjs-model-routes.metadata-storage');

/** Injection token of a registration's `serializationGroups` option, private to its module. */
export const MODEL_ROUTES_SERIALIZATION = Symbol('ModelRoutesSerialization');

/** Token, private to each `ModelRoutesModule` registration, of what it built. */
export const MODEL_ROUTES_REGISTRATION = Symbol('ModelRoutesRegistration');

/** Injection token of a registration's `ImageWork`. */
export const IMAGE_WORK = Symbol('ModelRoutesImageWork');

/** Injection token of a registration's `Admission` (its admission limit). */
export const ADMISSION = Symbol('ModelRoutesAdmission');

/** Injection token of a registration's settings (`ModelRoutesSettings`), private to its module. */
export const MODEL_ROUTES_SETTINGS = Symbol('ModelRoutesSettings');

/** Injection token of a registration's resources with the settings in force (`ResolvedResources`), private to its module. */
export const MODEL_ROUTES_RESOURCES = Symbol('ModelRoutesResources');

/** Token, private to each `ModelRoutesHealthModule` registration, of its `DatabaseProbe`. */
export const DATABASE_PROBE = Symbol('DatabaseProbe');

/** Token, private to each `ModelRoutesHealthModule` registration, of what it built. */
export const MODEL_ROUTES_HEALTH = Symbol('ModelRoutesHealth');

/** Token, private to each `BackOfficeModule` registration, of its `BackOfficeService`. */
export const BACK_OFFICE = Symbol('BackOffice');

/** Injection token of a `ModelRoutesHealthModule` registration's settings (`ModelRoutesHealthSettings`), private to its module. */
export const MODEL_ROUTES_HEALTH_SETTINGS = Symbol('ModelRoutesHealthSettings');

/** Injection token of a `BackOfficeModule` registration's settings (`BackOfficeSettings`: `title`, `auth`), private to its module. */
export const BACK_OFFICE_SETTINGS = Symbol('BackOfficeSettings');
