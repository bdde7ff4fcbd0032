/**
 * Options of `ModelRoutesHealthModule.forRoot()`.
 *
 * @publicApi
 */
export interface ModelRoutesHealthOptions {
  /** Path of the liveness route (`GET`, no database call); default `'health'`. May hold several segments (`'status/live'`). */
  healthPath?: string;
  /** Path of the readiness route (`GET`, a `ping` to the database); default `'ready'`. */
  readyPath?: string;
  /** How long the readiness route waits for the database's answer to `ping` before it answers 503; default 1000 ms. */
  readyTimeoutMS?: number;
  /** The Mongoose connection the readiness route pings (`MongooseModule.forRoot(uri, { connectionName })`); default: the default connection. */
  connectionName?: string;
}

/** The options in force, defaults applied and checked. */
export type HealthSettings = Required<Omit<ModelRoutesHealthOptions, 'connectionName'>> & Pick<ModelRoutesHealthOptions, 'connectionName'>;

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
