/**
 * The settings of `ModelRoutesHealthModule`: what `forRootAsync()`'s factory may compute (from
 * `ConfigService`, say). They do not change the routes, only how they answer.
 *
 * @publicApi
 */
export interface ModelRoutesHealthSettings {
  /** How long the readiness route waits for the database's answer to `ping` before it answers 503; default 1000 ms. */
  readyTimeoutMS?: number;
}

/**
 * The options of `ModelRoutesHealthModule` that shape its routes, given synchronously to `forRoot()`
 * and `forRootAsync()` alike: Nest needs the controller's paths when the module is declared.
 *
 * @publicApi
 */
export interface ModelRoutesHealthExtras {
  /** Path of the liveness route (`GET`, no database call); default `'health'`. May hold several segments (`'status/live'`). */
  healthPath?: string;
  /** Path of the readiness route (`GET`, a `ping` to the database); default `'ready'`. */
  readyPath?: string;
  /** The Mongoose connection the readiness route pings (`MongooseModule.forRoot(uri, { connectionName })`); default: the default connection. */
  connectionName?: string;
}

/**
 * Options of `ModelRoutesHealthModule.forRoot()`: the extras and the settings in one object.
 *
 * @publicApi
 */
export interface ModelRoutesHealthOptions extends ModelRoutesHealthExtras, ModelRoutesHealthSettings {}

/**
 * A class that computes the settings, for `ModelRoutesHealthModule.forRootAsync({ useClass })` or `{ useExisting }`.
 *
 * @publicApi
 */
export interface ModelRoutesHealthSettingsFactory {
  createModelRoutesHealthSettings(): ModelRoutesHealthSettings | Promise<ModelRoutesHealthSettings>;
}

/** The options in force, defaults applied and checked. */
export type HealthSettings = HealthRoutes & Required<ModelRoutesHealthSettings>;

/** The extras in force, defaults applied and checked: what the controller is built from. */
export type HealthRoutes = Required<Omit<ModelRoutesHealthExtras, 'connectionName'>> & Pick<ModelRoutesHealthExtras, 'connectionName'>;

/**
 * Body of the liveness route.
 *
 * @publicApi
 */
export interface HealthBody {
  status: 'ok';
}

/**
 * Body of the readiness route when the database answered.
 *
 * @publicApi
 */
export interface ReadyBody {
  status: 'ok';
  /** How long this request waited for the database's answer to `ping`. */
  database: { pingMs: number };
}
