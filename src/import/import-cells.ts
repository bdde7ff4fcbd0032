/** What the columns (or keys) of a file's rows are to an import. */
export interface ImportColumns {
  /** Columns an export writes and no write may (version key, timestamps, `readonly` fields, answered virtuals): skipped. */
  ignored: ReadonlySet<string>;
  /** Fields whose CSV cell holds JSON, as an export writes it (arrays, maps, Mixed, arrays of sub-documents). */
  whole: ReadonlySet<string>;
  /** Fields whose CSV cell is cast from text: numbers and booleans (text, dates and identifiers stay text, as in a JSON body). */
  scalars: ReadonlyMap<string, 'number' | 'boolean'>;
}

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** The mark an export puts before text that a spreadsheet would run as a formula (`'=...`). */
const NEUTRALIZED = /^'[=+\-@\t\r]/;

/**
 * A CSV record as the object a client would send: a dotted column (`address.city`) a nested
 * object, an empty cell an absent field, the cell of a number or boolean field its value, the cell of a field that holds JSON its value (a cell that
 * is not JSON stays text, which the check refuses as a create would), the `'` an export puts
 * before formula-like text taken off. Keys are own properties whatever their name (`__proto__`
 * included), so that the check sees, and refuses, what the file says.
 */
export function csvRowValue(record: Record<string, string>, columns: ImportColumns): Record<string, unknown> {
  return rowValue(record, columns, true);
}

/**
 * An XLSX row, its cells as text (`xlsx-cells`), as the object a client would send: as a CSV
 * record is, but no `'` is taken off, since an XLSX export stores text as text and marks nothing.
 */
export function xlsxRowValue(record: Record<string, string>, columns: ImportColumns): Record<string, unknown> {
  return rowValue(record, columns, false);
}

function rowValue(record: Record<string, string>, columns: ImportColumns, unmark: boolean): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(record)) {
    if (cell === '' || columns.ignored.has(column)) continue;
    const text = unmark && NEUTRALIZED.test(cell) ? cell.slice(1) : cell;
    setPath(value, column, columns.whole.has(column) ? jsonOr(text) : cast(text, columns.scalars.get(column)));
  }
  return value;
}

/** A JSON or NDJSON row without the keys an import ignores (top-level ones). */
export function withoutIgnored(row: unknown, columns: ImportColumns): unknown {
  if (!row || typeof row !== 'object' || Array.isArray(row)) return row;
  const kept = Object.entries(row as Record<string, unknown>).filter(([key]) => !columns.ignored.has(key));
  if (kept.length === Object.keys(row).length) return row;
  const value: Record<string, unknown> = {};
  for (const [key, field] of kept) define(value, key, field);
  return value;
}

/** Which of the ignored columns a row names. */
export function ignoredIn(keys: readonly string[], columns: ImportColumns): string[] {
  return keys.filter((key) => columns.ignored.has(key));
}

/**
 * A number or boolean cell as its value (`TRUE` as a spreadsheet writes it too); text that is neither stays text, which the check refuses as a create would.
 */
function cast(text: string, type: 'number' | 'boolean' | undefined): unknown {
  if (type === 'number') return NUMBER.test(text.trim()) ? Number(text) : text;
  if (type === 'boolean') return /^(true|false)$/i.test(text.trim()) ? text.trim().toLowerCase() === 'true' : text;
  return text;
}

function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Sets `path` (dotted) in `target`; where a segment already holds a value that is not an object, the column is kept whole, as a key the check refuses. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) {
    const next = Object.prototype.hasOwnProperty.call(at, part) ? at[part] : undefined;
    if (next === undefined) {
      const created: Record<string, unknown> = {};
      define(at, part, created);
      at = created;
    } else if (next && typeof next === 'object' && !Array.isArray(next)) {
      at = next as Record<string, unknown>;
    } else {
      define(target, path, value);
      return;
    }
  }
  define(at, parts[parts.length - 1], value);
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
