import type { Model, Schema } from 'mongoose';

interface VirtualLike {
  getters?: unknown[];
  options?: { ref?: unknown };
}

/**
 * The virtuals a schema asks to be answered: those its `toJSON` option names, `virtuals: true` for
 * all of them or `virtuals: ['fullName']`, that have a getter (the routes answer JSON; `toObject`
 * is about the objects server code handles, and stays out of the answers). Left out:
 * Mongoose's own `id` (the documents have `_id`), populate virtuals (`ref`: the routes answer
 * identifiers, never populated documents) and virtuals of sub-documents.
 */
export function answeredVirtuals(schema: Schema): string[] {
  const asked = (schema.get('toJSON') as { virtuals?: unknown } | undefined)?.virtuals;
  if (asked !== true && !Array.isArray(asked)) return [];
  const virtuals = schema.virtuals as Record<string, VirtualLike>;
  return Object.keys(virtuals).filter(
    (name) =>
      name !== 'id' &&
      !name.includes('.') &&
      !virtuals[name].options?.ref &&
      Boolean(virtuals[name].getters?.length) &&
      (asked === true || (asked as unknown[]).includes(name)),
  );
}

/**
 * Adds to a plain document (hidden fields already removed) the value of each virtual in `names`,
 * computed by its getter on the document as Mongoose builds it from those data. A virtual whose
 * getter throws, or gives `undefined`, is left out of that document.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
export function addVirtuals(model: Model<any>, names: readonly string[], plain: Record<string, unknown>): void {
  const doc = model.hydrate({ ...plain });
  for (const name of names) {
    try {
      const value: unknown = doc.get(name);
      if (value !== undefined) plain[name] = value;
    } catch {
      // The getter could not compute it from these data (a field it reads is absent).
    }
  }
}
