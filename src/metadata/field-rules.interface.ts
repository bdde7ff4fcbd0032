/** Which paths of a schema a client may read, filter and write. */
export interface FieldRules {
  /** Every schema path (dotted for nested objects), without hidden ones. */
  readable: ReadonlySet<string>;
  /** Paths whose sub-paths are free-form (Mixed, arrays, maps, sub-documents). */
  openPrefixes: readonly string[];
  /** Paths never returned nor queried (`select: false`, `hidden`, `writeOnly`). */
  hidden: ReadonlySet<string>;
  /** Hidden paths a client may write all the same (`writeOnly`). */
  writeOnly: ReadonlySet<string>;
  /** Paths, at every depth, a client may send on create and update. */
  writable: ReadonlySet<string>;
  /**
   * Paths a client may never send (`_id`, version key, timestamps, `readonly`, and arrays of
   * sub-documents that hold hidden fields: replacing them whole would erase what the client cannot see).
   */
  protected: ReadonlySet<string>;
  /** Nested objects and single sub-documents: a write sends an object (merged) or `null`. */
  objects: ReadonlySet<string>;
  /** Arrays of sub-documents: a write sends an array of objects (replacing the array) or `null`. */
  documentArrays: ReadonlySet<string>;
  /** Name of the version key (`__v` by default), or undefined when disabled. */
  versionKey?: string;
  /** Allowed values of `enum` fields, as strings, to refuse impossible filter values. */
  enums: ReadonlyMap<string, ReadonlySet<string>>;
}
