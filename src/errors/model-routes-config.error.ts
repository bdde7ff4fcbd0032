/**
 * Stable codes of the errors `ModelRoutesModule.forRoot()` throws at startup.
 *
 * @publicApi
 */
export const CONFIG_ERROR_CODES = Object.freeze({
  MR_CONFIG_NOT_A_RESOURCE: 'A class listed in `resources` has no `@GeneratedResource()`.',
  MR_CONFIG_DUPLICATE_PATH: "Two resources (or a resource's path and its plural) use the same path segment.",
  MR_CONFIG_UNKNOWN_REFERENCE: 'A `ref` names a model that is not among the resources.',
  MR_CONFIG_UNKNOWN_ID_FIELD: 'The `id` option names a field the schema does not have.',
  MR_CONFIG_UNKNOWN_FIELD: 'The `hidden`, `readonly` or `writeOnly` option names a field the schema does not have.',
  MR_CONFIG_UNKNOWN_ROUTE: 'A route option names a route, or a reference field, that does not exist.',
  MR_CONFIG_INVALID_CONTROLLER:
    'A class in `controllers` does not extend `GeneratedController(...)` of a listed resource, gives its own path, or shares its resource with another.',
  MR_CONFIG_INVALID_OPTION:
    'An option has a value the library cannot use (a path that is not one URL segment, a bad limit, a `ref` that cannot be resolved, an `onDelete` that ' +
    'does not fit its field).',
  MR_CONFIG_UNSUPPORTED_TYPE: 'A field has a type the database engine cannot store (Decimal128 on FerretDB v1), found when the app initialises.',
  MR_CONFIG_UNSUPPORTED_INDEX:
    "A sub-type declares an index the database engine cannot build (Mongoose's partial index of a discriminator, on FerretDB v1), " +
    'found when the app initialises.',
} as const);

/** @publicApi */
export type ConfigErrorCode = keyof typeof CONFIG_ERROR_CODES;

/**
 * A mistake in the resources or options, found at startup. The message names the class,
 * the field and the fix.
 *
 * @publicApi
 */
export class ModelRoutesConfigError extends Error {
  override readonly name = 'ModelRoutesConfigError';

  constructor(
    readonly code: ConfigErrorCode,
    message: string,
  ) {
    super(`${message} [${code}]`);
  }
}
