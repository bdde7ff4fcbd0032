/**
 * What `GET <path>/metadata` answers (`BackOfficeModule`): everything the back office's page knows
 * of the app, read from the route table and the field rules. Types only: shared by the server,
 * which builds it, and the browser app, which reads it.
 *
 * @publicApi
 */
export interface BackOfficeMetadata {
  /** The page's title (`forRoot({ title })`). */
  title: string;
  /** Where the generated routes are: the app's global prefix (`''` or e.g. `/api`). */
  apiBase: string;
  /** How guarded routes get their credentials: this header, with `scheme` before the value when given (`Authorization: Bearer ...`). */
  auth: { header: string; scheme?: string };
  resources: ResourceMetadata[];
  /**
   * Where each generated route is served, when that is not `apiBase` and the route table's path:
   * with `app.enableVersioning()`, or a global prefix whose `exclude` covers some of them. Absent
   * otherwise.
   */
  routes?: ServedRouteMetadata[];
}

/** One generated route as the app serves it: `${base}${path}`, with `headers` (its version, by header or media type). */
export interface ServedRouteMetadata {
  method: string;
  /** The route table's path: `/company/:company_id`. */
  path: string;
  /** What comes before it: `/api/v1`, `/api`, `/v1` or `''`. */
  base: string;
  headers?: Record<string, string>;
}

/**
 * The generated routes of a resource, by action name (absent when disabled).
 *
 * @publicApi
 */
export type ResourceRoute =
  | 'findOne'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'search'
  | 'searchPost'
  | 'export'
  | 'exportPost'
  | 'import'
  | 'updateMany'
  | 'deleteMany'
  | 'trash'
  | 'restore'
  | 'purge'
  | 'history'
  | 'revert';
/**
 * The generated routes of a reference field (`reverse` ones are listed on the target, in `referencedBy`).
 *
 * @publicApi
 */
export type ReferenceRoute = 'find' | 'list' | 'add' | 'remove';
/**
 * The generated routes of a file field.
 *
 * @publicApi
 */
export type FileRoute = 'upload' | 'addFile' | 'download' | 'deleteFile';
/** The element routes of an array of sub-documents (the page still edits such an array as JSON, through the document's routes). */
export type ElementRoute = 'addElement' | 'findElement' | 'patchElement' | 'deleteElement';

/** @publicApi */
export interface ResourceMetadata {
  /** Model name: `Company`. */
  name: string;
  /** Path segment of one document (`company`) and of the search (`companies`). */
  path: string;
  plural: string;
  /** The field that identifies a document in URLs: `_id`, or e.g. `slug`. */
  idField: string;
  /** The field shown as a document's name in lists, links and pickers. */
  labelField: string;
  /** Whether writes need `If-Match`. */
  requireIfMatch: boolean;
  /** When a field is `expandable`: the most paths one request may expand (`search.maxExpandPaths`); the page looks the others up. */
  maxExpandPaths?: number;
  /** Its enabled generated routes. */
  routes: ResourceRoute[];
  /**
   * With soft delete (`@GeneratedResource({ softDelete: true })`): the field that marks a deleted
   * document (`deletedAt`, a date). A delete puts the document in the resource's trash, which its
   * `trash`, `restore` and `purge` routes (where enabled) search, empty and restore from.
   */
  softDelete?: { field: string };
  /** Its fields, nested objects holding theirs; hidden fields are not here. With sub-types: every sub-type's. */
  fields: FieldMetadata[];
  /**
   * With sub-types (Mongoose discriminators): the key that says which one a document is, and each
   * sub-type's own fields (the base's and its own, with its own required ones): what the form of a
   * document of that sub-type shows and sends.
   */
  subTypes?: SubTypesMetadata;
  /** Reference fields of resources (this one included) that point to this one, with their enabled reverse routes. */
  referencedBy: Array<{ resource: string; field: string; isArray: boolean; routes: Array<'reverse' | 'reversePost' | 'reverseExport' | 'reverseExportPost'> }>;
}

/** The sub-types of a resource, for its form: see `ResourceMetadata.subTypes`. */
export interface SubTypesMetadata {
  /** The discriminator key: `kind`. */
  key: string;
  /** In their declared order; a create starts with the first. */
  types: Array<{ value: string; fields: FieldMetadata[] }>;
}

/** @publicApi */
export type FieldType =
  | 'string'
  | 'number'
  | 'boolean'
  | 'date'
  | 'objectId' // an ObjectId that references no resource
  | 'reference' // `{ type: ObjectId, ref }` to a resource
  | 'references' // an array of them
  | 'object' // a nested object or single sub-document: `fields`
  | 'array' // an array of primitive values: `items`
  | 'json' // anything else (Mixed, Map, arrays of sub-documents): edited as JSON
  | 'file' // `@FileProp() logo?: FileRef`
  | 'files'; // a gallery: `@FileProp() photos?: FileRef[]`

/** @publicApi */
export interface FieldMetadata {
  /** Full dotted path: `address.city`. */
  path: string;
  type: FieldType;
  required?: true;
  /** Allowed values (`enum`). */
  enum?: string[];
  /** Bounds the schema declares (`min`, `max`, `minlength`, `maxlength`). */
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  /** Shown, never sent: `_id`, timestamps, `readonly` fields. */
  readOnly?: true;
  /** Sent, never shown (`writeOnly`). */
  writeOnly?: true;
  /** `array`: the type of its items. */
  items?: 'string' | 'number' | 'boolean' | 'date' | 'objectId';
  /** `object`: its fields. */
  fields?: FieldMetadata[];
  /** `reference` and `references`: the referenced resource's name... */
  target?: string;
  /**
   * `reference` and `references`: the field is declared `expand: true`, so the page reads the
   * referenced documents with `?expand=` in its own request instead of one search per target resource.
   */
  expandable?: true;
  /**
   * `reference` and `references`: the field is declared `filter: true`, so a search may hold
   * conditions on the referenced documents' fields (`owner.niceName`); on an array of references,
   * a condition holds for some element.
   */
  filterable?: true;
  /**
   * With `filterable`: the referenced resource's fields such a condition may use, top-level text,
   * number, date and boolean fields (enums among them) of its `fields`, so never a hidden one.
   */
  filterFields?: string[];
  /** ...and the field's enabled routes; `file` and `files`: the file routes; an array of sub-documents (`json`): its element routes. */
  routes?: Array<ReferenceRoute | FileRoute | ElementRoute>;
  /** `file` and `files`: accepted media types, the size limit in bytes, and whether images can be resized (`?w=`). */
  accept?: string[];
  maxSize?: number;
  /** `files`: the largest number of files the gallery holds. */
  maxFiles?: number;
  variants?: boolean;
}
