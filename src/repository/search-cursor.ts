import { createHmac, timingSafeEqual } from 'node:crypto';
import { Types } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { hasNulCharacter, NUL_CHARACTER_MESSAGE } from '../utils/text.util.js';

/**
 * The key of the cursors' MAC where `search.cursorSecret` is not set. It is public, so such a MAC
 * tells a cursor of another search (or a damaged one) from the right one, but does not prove that
 * the server made it: a forged cursor is still harmless (its values are cast by the schema and
 * only compared with the sort's fields, which the request may read). See docs/decisions.md.
 */
export const LIBRARY_CURSOR_KEY = 'nestjs-model-routes/search-cursor';

/** The version of the payload's format, first in it: a later format can tell its cursors apart. */
const FORMAT = 1;

/** The bytes of HMAC-SHA256 a cursor carries: 128 bits. */
const MAC_BYTES = 16;

/** What a cursor belongs to: a page of another search (resource, route, sort or filter) does not take it. */
export interface CursorBinding {
  /** The searched resource (`Company`). */
  resource: string;
  /** The condition of the route (`{ owner: <id> }` on a reverse route), none on the search routes. */
  scope?: Record<string, unknown>;
  /** The order, `_id` last. */
  sort: Record<string, 1 | -1>;
  /** The client's filter as parsed, before conditions across references were resolved. */
  filter: Record<string, unknown>;
}

/**
 * `base64url(payload) + '.' + base64url(MAC)`: the payload is `{ v, k }`, the values of the sort's
 * keys in the page's last document (`_id` last), ObjectIds and Dates tagged (`{ $oid }`,
 * `{ $date }`) so they come back as they were; the MAC is the first 16 bytes of HMAC-SHA256 of
 * the payload and the binding.
 */
export function encodeCursor(values: readonly unknown[], binding: CursorBinding, secret: string): string {
  const payload = Buffer.from(JSON.stringify({ v: FORMAT, k: values.map(tagged) })).toString('base64url');
  return `${payload}.${mac(payload, binding, secret).toString('base64url')}`;
}

/**
 * The values a cursor carries, one per key of the binding's sort, when it is one `encodeCursor`
 * made for this binding; else a 400 `MR_INVALID_CURSOR` naming `after`. A value holding U+0000 is
 * refused like every other client string holding it (see NUL_CHARACTER_MESSAGE), whoever signed
 * it: with the library's public key a client can sign any values, and a page whose last document
 * holds one (stored by another writer, on an engine that can store it) cannot be continued alike
 * on every engine.
 */
export function decodeCursor(cursor: unknown, binding: CursorBinding, secret: string): unknown[] {
  if (typeof cursor !== 'string' || cursor.length === 0) throw invalidCursor('after must be the string status.next of a page');
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(cursor);
  if (!match) throw invalidCursor('after is not a cursor: send status.next of a page as it came');
  const [, payload, sent] = match;
  const expected = mac(payload, binding, secret);
  const given = Buffer.from(sent, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalidCursor(
      'The cursor in after belongs to another search (its resource, route, sort or filter differ) or was altered: send the search of the page that gave it',
    );
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('after is not a cursor: send status.next of a page as it came');
  }
  const { v, k } = (decoded ?? {}) as { v?: unknown; k?: unknown };
  const keys = Object.keys(binding.sort).length;
  if (v !== FORMAT || !Array.isArray(k) || k.length !== keys)
    throw invalidCursor('after is not a cursor of this version of the server: start again from the first page');
  return k.map(untagged);
}

/** A 400 `MR_INVALID_CURSOR` naming `after`. */
export function invalidCursor(message: string): ModelRoutesException {
  return new ModelRoutesException('MR_INVALID_CURSOR', message, [{ path: 'after', message }]);
}

function mac(payload: string, binding: CursorBinding, secret: string): Buffer {
  const bound = JSON.stringify([binding.resource, canonical(binding.scope ?? null), Object.entries(binding.sort), canonical(binding.filter)]);
  return createHmac('sha256', secret).update(`${payload}\n${bound}`).digest().subarray(0, MAC_BYTES);
}

/** A value as JSON: ObjectIds and Dates tagged, anything missing as `null`. */
function tagged(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (isObjectId(value)) return { $oid: String(value) };
  if (value instanceof Date) return { $date: value.toISOString() };
  return value;
}

function untagged(value: unknown): unknown {
  if (typeof value === 'string' && hasNulCharacter(value)) throw nulInCursor();
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  const tag = value as { $oid?: unknown; $date?: unknown };
  if (typeof value === 'object' && Object.keys(value).length === 1) {
    if (typeof tag.$oid === 'string' && /^[0-9a-f]{24}$/.test(tag.$oid)) return new Types.ObjectId(tag.$oid);
    // `Date.parse` reads past a trailing NUL: refused before it, as in a string value.
    if (typeof tag.$date === 'string' && hasNulCharacter(tag.$date)) throw nulInCursor();
    if (typeof tag.$date === 'string' && !Number.isNaN(Date.parse(tag.$date))) return new Date(tag.$date);
  }
  throw invalidCursor('after holds a value no page gives: send status.next of a page as it came');
}

/** A cursor whose value holds U+0000: refused as that character is in every client string. */
function nulInCursor(): ModelRoutesException {
  return invalidCursor(
    `A value of the cursor in after ${NUL_CHARACTER_MESSAGE}: a page whose last document's sort value holds one cannot be continued; ` +
      'sort by another field, or start again from the first page',
  );
}

/**
 * A filter as one string whatever the order of its keys (`{ a, b }` is `{ b, a }`); arrays keep
 * theirs. ObjectIds, Dates and regular expressions are tagged, as in the payload.
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value instanceof RegExp) return { $regex: value.source, $options: value.flags };
  if (isObjectId(value) || value instanceof Date) return tagged(value);
  if (value !== null && typeof value === 'object') {
    return Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]);
  }
  return value === undefined ? null : value;
}

function isObjectId(value: unknown): value is Types.ObjectId {
  return (value as { _bsontype?: unknown } | null)?._bsontype === 'ObjectId';
}
