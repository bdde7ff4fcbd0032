/** Injection token of a registration's settings (`ModelRoutesSettings`), private to its module. */
export const MODEL_ROUTES_SETTINGS = Symbol('ModelRoutesSettings');
