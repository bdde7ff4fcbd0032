import { valueAtPath } from '../utils/object-path.util.js';

/** A cell of a CSV or XLSX export: text, a number, a boolean, or empty. */
export type Cell = string | number | boolean | null;

/** What a spreadsheet takes for the start of a formula (OWASP's list): `=`, `+`, `-`, `@`, tab and carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * The cells of one document, one per column (`address.city` read at its path): a date as ISO 8601,
 * an object or an array as its JSON, nothing as an empty cell.
 */
export function cellsOf(doc: Record<string, unknown>, columns: readonly string[]): Cell[] {
  return columns.map((column) => cellOf(column.includes('.') ? valueAtPath(doc, column) : doc[column]));
}

function cellOf(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/**
 * A text cell that a spreadsheet application would run as a formula when it opens a CSV file
 * (`=HYPERLINK(...)`, `+cmd|...`, `-2+3`, `@SUM(...)`), prefixed with `'` so that it shows as
 * text: the OWASP "CSV injection" defence. Numbers are left as they are (`-5` is a number).
 */
export function neutralized(cell: Cell): Cell {
  return typeof cell === 'string' && FORMULA_START.test(cell) ? `'${cell}` : cell;
}
