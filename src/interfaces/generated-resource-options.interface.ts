/**
 * Options of `@GeneratedResource()`. Every option is optional.
 */
export interface GeneratedResourceOptions {
  /** Singular path segment, e.g. `company` in `GET /company/:company_id`. Default: kebab-case of the class name. */
  path?: string;
  /** Plural path segment, e.g. `companies` in `GET /companies`. Default: English plural of `path`. */
  plural?: string;
  /**
   * The field that identifies an instance in URLs. Default `_id`.
   * Any unique field works, e.g. a slug.
   */
  id?: string;
}
