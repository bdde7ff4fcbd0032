import { createHash } from 'node:crypto';
import mongoose from 'mongoose';

const ETAG = Symbol.for('nestjs-model-routes.etag');

/**
 * The strong entity tag of a document the repository answered (`"65a1…f3-4"`, quotes included),
 * or `undefined` for any other value (a copy, a search result, a document of your own making).
 * Set it as `ETag` in your own routes: `res.header('ETag', etagOf(doc))`.
 *
 * @publicApi
 */
export function etagOf(doc: unknown): string | undefined {
  return doc !== null && typeof doc === 'object' ? ((doc as { [ETAG]?: string })[ETAG] ?? undefined) : undefined;
}

/** Attaches `tag` to `doc`, invisible to JSON and to serializers (a non-enumerable symbol property). */
export function attachEtag<T extends object>(doc: T, tag: string): T {
  Object.defineProperty(doc, ETAG, { value: tag, configurable: true });
  return doc;
}

/**
 * The tag of a document's version: its `_id` and its version key, which every repository write
 * increments. The `_id` keeps a tag of a deleted document from matching another one created
 * under the same slug later, whose version starts again at 0.
 */
export function versionTag(id: unknown, version: unknown): string {
  return `"${encodeURIComponent(String(id))}-${typeof version === 'number' ? version : 0}"`;
}

/** What a version tag names: `{ id, version }`, or `undefined` when `tag` is not one (never matches). */
export function parseVersionTag(tag: string): { id: string; version: number } | undefined {
  const dash = tag.lastIndexOf('-');
  if (dash < 2 || tag[0] !== '"' || tag[tag.length - 1] !== '"') return undefined;
  const digits = tag.slice(dash + 1, -1);
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  try {
    return { id: decodeURIComponent(tag.slice(1, dash)), version: Number(digits) };
  } catch {
    return undefined;
  }
}

/**
 * The tag of a document whose schema has no version key (`versionKey: false`): a SHA-256 of its
 * BSON, as the route answers it (hidden fields left out), so that it changes with any write.
 */
export function contentTag(doc: object): string {
  const bytes = mongoose.mongo.BSON.serialize(doc);
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
}

/** An `If-Match` or `If-None-Match` header: `*`, or its entity tags (weak ones keep their `W/`). */
export type EntityTagCondition = '*' | string[];

/**
 * Parses `If-Match` / `If-None-Match` (RFC 9110 section 13.1): `*`, or a comma-separated list of
 * entity tags. Repeated headers (an array) are one list. Anything that is not a quoted tag is
 * dropped: it can match nothing.
 */
export function parseEntityTags(header: string | readonly string[]): EntityTagCondition {
  const text = typeof header === 'string' ? header : header.join(',');
  if (text.trim() === '*') return '*';
  return text.match(/(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g) ?? [];
}

/** Strong comparison (`If-Match`): a weak tag never matches. */
export function matchesStrongly(condition: EntityTagCondition, tag: string): boolean {
  return condition === '*' || condition.includes(tag);
}

/** Weak comparison (`If-None-Match`): `W/"x"` matches `"x"`. */
export function matchesWeakly(condition: EntityTagCondition, tag: string): boolean {
  const opaque = tag.startsWith('W/') ? tag.slice(2) : tag;
  return condition === '*' || condition.some((candidate) => (candidate.startsWith('W/') ? candidate.slice(2) : candidate) === opaque);
}

/** The conditions of a write (RFC 9110 section 13.1): both must hold for it to be applied. */
export interface WritePrecondition {
  /** `If-Match`: the document has one of these versions (strong comparison; `*`: any). */
  ifMatch?: EntityTagCondition;
  /** `If-None-Match`: the document has none of these versions (weak comparison; `*`: it does not exist). */
  ifNoneMatch?: EntityTagCondition;
}

/**
 * Which of a write's conditions fails for the document whose tag is `tag`, if one does: `If-Match`
 * when it names none of the document's versions, else `If-None-Match` when it names the current
 * one (RFC 9110 section 13.2.2: the write answers 412 either way).
 */
export function failedCondition({ ifMatch, ifNoneMatch }: WritePrecondition, tag: string): 'If-Match' | 'If-None-Match' | undefined {
  if (ifMatch !== undefined && !matchesStrongly(ifMatch, tag)) return 'If-Match';
  if (ifNoneMatch !== undefined && matchesWeakly(ifNoneMatch, tag)) return 'If-None-Match';
  return undefined;
}
