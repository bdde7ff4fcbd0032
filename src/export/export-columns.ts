/** The fields of a resource as an export reads them: those the request may read, and what holds a value whole. */
export interface ExportFields {
  /** The paths the request may read (the resource's readable ones, or its serialization view's). */
  readable: ReadonlySet<string>;
  /** Paths whose value is free-form (Mixed, maps, arrays of values): one column, the value as JSON. */
  openPrefixes: readonly string[];
  /** Arrays of sub-documents and file fields (`@FileProp()`): one column, the value as JSON. */
  wholes: Iterable<string>;
}

/**
 * The columns of a CSV or XLSX export, in the schema's order with `_id` first: one per field that
 * holds a value (`address.city`, not `address`), a nested object flattened to dotted columns; an
 * array, a map, a free-form field or a file is one column (its cells hold JSON). With `select`, the
 * selected fields only (and `_id`); without it, the virtuals the schema answers come last.
 */
export function exportColumns(fields: ExportFields, select?: readonly string[], virtuals: readonly string[] = []): string[] {
  const whole = [...fields.openPrefixes, ...fields.wholes];
  const paths = [...fields.readable].filter((path) => !whole.some((root) => path.startsWith(`${root}.`)));
  const kept = paths.filter((path) => whole.includes(path) || !paths.some((other) => other.startsWith(`${path}.`)));
  const chosen = select
    ? kept.filter((path) => select.some((field) => path === field || path.startsWith(`${field}.`) || field.startsWith(`${path}.`)))
    : [...kept, ...virtuals];
  return ['_id', ...chosen.filter((path) => path !== '_id')];
}
