import type { Model, Schema } from 'mongoose';

interface VirtualLike {
  getters?: unknown[];
  options?: { ref?: unknown };
}

/**
 * The virtuals a schema asks to be answered: those its `toJSON` (or `toObject`) option names,
 * `virtuals: true` for all of them or `virtuals: ['fullName']`, that have a getter. Left out:
 * Mongoose's own `id` (the documents have `_id`), populate virtuals (`ref`: the routes answer
 * identifiers, never populated documents) and virtuals of sub-documents.
 */
export function answeredVirtuals(schema: Schema): string[] {
  const asked = [schema.get('toJSON'), schema.get('toObject')]
    .map((options) => (options as { virtuals?: unknown } | undefined)?.virtuals)
    .find((virtuals) => virtuals === true || Array.isArray(virtuals));
  if (!asked) return [];
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
