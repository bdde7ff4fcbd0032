import { deletePath, valueAtPath } from '../utils/object-path.util.js';
import { decodeCursor, encodeCursor, type CursorBinding } from './search-cursor.js';

/**
 * Keyset paging of one sorted search: the condition that continues after a cursor (`after`), and
 * the cursor after a page's last document (`status.next`). The order is the search's sort with
 * `_id` last, so that every document has one place in it.
 *
 * MongoDB orders a missing field as `null`, before every value: after `null` ascending come the
 * documents that have a value (`$ne: null`), and after a value descending come those below it and
 * those without one (`null` matches both null and missing). `$gt: null` would match nothing.
 */
export class KeysetPage {
  private readonly keys: Array<[string, 1 | -1]>;

  constructor(
    readonly binding: CursorBinding,
    private readonly secret: string,
  ) {
    this.keys = Object.entries(binding.sort);
  }

  /**
   * The documents after the cursor, in the order of the sort: `{ a: { $gt: v1 } }` or
   * `{ a: v1, b: { $gt: v2 } }` or ... `{ a: v1, ..., _id: { $gt: id } }`. A cursor of another
   * search is a 400 `MR_INVALID_CURSOR` (`decodeCursor`).
   */
  after(cursor: unknown): Record<string, unknown> {
    const values = decodeCursor(cursor, this.binding, this.secret);
    const branches: Array<Record<string, unknown>> = [];
    const equal: Record<string, unknown> = {};
    this.keys.forEach(([field, direction], index) => {
      const value = values[index];
      if (direction === 1) branches.push(Object.assign({}, equal, { [field]: value === null ? { $ne: null } : { $gt: value } }));
      // Every document has an `_id`: none without one to follow.
      else if (value !== null) {
        branches.push(Object.assign({}, equal, { [field]: { $lt: value } }));
        if (field !== '_id') branches.push(Object.assign({}, equal, { [field]: null }));
      }
      equal[field] = value;
    });
    if (branches.length === 0) return { _id: { $in: [] } };
    return branches.length === 1 ? branches[0] : { $or: branches };
  }

  /** The cursor that continues after `doc` (a raw document that holds the sort's fields). */
  next(doc: Record<string, unknown>): string {
    return encodeCursor(
      this.keys.map(([field]) => valueAtPath(doc, field)),
      this.binding,
      this.secret,
    );
  }

  /**
   * The fields of the sort that `select` leaves out: read with the page, for its cursor, and taken
   * out of its documents (`strip`). A field under a selected one is read with it; a field that a
   * selected one lies under (`address` for `address.city`) is not added (the paths would collide).
   */
  unselected(select: readonly string[]): string[] {
    return this.keys
      .map(([field]) => field)
      .filter((field) => field !== '_id' && !select.some((chosen) => field === chosen || field.startsWith(`${chosen}.`) || chosen.startsWith(`${field}.`)));
  }
}

/**
 * Takes the `added` fields out of a document read with them: a field whose top-level object no
 * selected field names goes whole; else only the field (the object keeps what was selected).
 */
export function strip(doc: Record<string, unknown>, added: readonly string[], select: readonly string[]): void {
  for (const field of added) {
    const parts = field.split('.');
    const keepsTop = parts.length > 1 && select.some((chosen) => chosen.split('.')[0] === parts[0]);
    deletePath(doc, keepsTop ? parts : [parts[0]]);
  }
}
