import mongoose, { type Connection } from 'mongoose';

/** Every collection of a database at one moment, read raw (hidden fields included). */
export interface Snapshot {
  text: string;
  /** Per collection, one canonical EJSON line per document: a failing comparison shows the document. */
  parts: Record<string, string[]>;
  raw: Map<string, Array<Record<string, unknown>>>;
}

/** Every collection of the database (those of the models and any other), documents sorted by `_id`. */
export async function snapshot(connection: Connection): Promise<Snapshot> {
  const db = connection.db!;
  const names = new Set(Object.values(connection.models).map((model) => model.collection.collectionName));
  for (const info of await db.listCollections({}, { nameOnly: true }).toArray()) names.add(info.name);
  const raw = new Map<string, Array<Record<string, unknown>>>();
  const parts: Record<string, string[]> = {};
  for (const name of [...names].sort()) {
    const docs = await db.collection(name).find().toArray();
    docs.sort((a, b) => String(a._id).localeCompare(String(b._id)));
    raw.set(name, docs);
    // Canonical EJSON keeps the BSON types: a number turned into a string is a change too.
    parts[name] = docs.map((doc) => mongoose.mongo.BSON.EJSON.stringify(doc, { relaxed: false }));
  }
  return { text: JSON.stringify(parts), parts, raw };
}

/** The collections whose content differs between two snapshots. */
export function changedCollections(before: Snapshot, after: Snapshot): string[] {
  const names = new Set([...Object.keys(before.parts), ...Object.keys(after.parts)]);
  return [...names].filter((name) => JSON.stringify(before.parts[name]) !== JSON.stringify(after.parts[name])).sort();
}

/** Puts the database back as `before` had it, so one failing case cannot spoil the next ones. */
export async function restore(connection: Connection, before: Snapshot): Promise<void> {
  const db = connection.db!;
  for (const info of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (!before.raw.has(info.name)) await db.collection(info.name).drop();
  }
  for (const [name, docs] of before.raw) {
    await db.collection(name).deleteMany({});
    if (docs.length) await db.collection(name).insertMany(docs.map((doc) => ({ ...doc })));
  }
}

/** What a request did to the data: the database before and after it. */
export interface Observed<T> {
  response: T;
  before: Snapshot;
  after: Snapshot;
}

/**
 * Sends a request between two snapshots, then puts the data back as it was, so one case cannot
 * spoil the next ones; also when the request itself failed (a response that breaks the OpenAPI
 * contract rejects it), whose error is thrown once the data is restored.
 */
export async function observe<T>(connection: Connection, send: () => PromiseLike<T>): Promise<Observed<T>> {
  const before = await snapshot(connection);
  const outcome = await Promise.resolve(send()).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
  const after = await snapshot(connection);
  if (after.text !== before.text) await restore(connection, before);
  if ('error' in outcome) throw outcome.error;
  return { response: outcome.response, before, after };
}
