import { Types, type Connection } from 'mongoose';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { ReferenceDefinition } from '../definitions/resource-definition.interface.js';
import type { FieldAccess, FieldSlot } from '../utils/object-path.util.js';
import { allOf } from '../utils/all-of.util.js';
import { readScopeOf } from '../scopes/row-scope.js';
import type { CallContext } from '../call/call-context.js';

const OBJECT_ID = /^[0-9a-f]{24}$/i;

/**
 * Turns the references a write names into the `_id`s to store, and checks that they exist, at
 * every depth (a reference inside a sub-document, or an array of them, is checked like a top-level one):
 *
 * - a value may be the referenced document's `_id` (24 hex characters) or, when the referenced
 *   resource is identified by another field (a slug), that field's value; an `_id` match wins;
 * - with `checkExists` (the default), a value that names no document is a 400
 *   `MR_REFERENCE_NOT_FOUND` naming the field (`tags.1`, `vaccinations.0.vet`) and the value; so is
 *   one outside the call's row scope of the referenced resource (`RowScope`), in the same words;
 * - one query per written reference field, none for a field whose values are all `_id`s and
 *   whose existence is not checked.
 *
 * `undefined` (nothing to wait for) when the write names no reference.
 *
 * Values that are not strings (or ObjectIds) are left to the schema's cast, which refuses them.
 */
export function resolveReferences(
  connection: Connection,
  references: readonly ReferenceDefinition[],
  data: FieldAccess,
  maxTimeMS: number,
  call: CallContext,
): Promise<void> | undefined {
  // Most writes name no reference: they cost no promise.
  const written = references.map((reference) => ({ reference, slots: slotsOf(reference, data) })).filter(({ slots }) => slots.length > 0);
  if (written.length === 0) return undefined;
  return Promise.all(
    written.map(async ({ reference, slots }) => {
      const keys = slots.map((slot) => asKey(slot.value));
      const byId = keys.filter((key): key is string => key !== undefined && OBJECT_ID.test(key));
      const byField = reference.targetIdField === '_id' ? [] : keys.filter((key): key is string => key !== undefined);
      if (byField.length === 0 && (!reference.checkExists || byId.length === 0)) return;
      const found = await findTargets(connection, reference, byId, byField, maxTimeMS, call);
      const resolved = slots.map((slot, index) => {
        const key = keys[index];
        if (key === undefined) return slot.value;
        const objectId = (OBJECT_ID.test(key) ? found.byId.get(key.toLowerCase()) : undefined) ?? found.byField.get(key);
        if (objectId) return objectId;
        if (!reference.checkExists && OBJECT_ID.test(key)) return slot.value;
        const message = `No ${reference.targetName} has the identifier '${key}'`;
        throw new ModelRoutesException('MR_REFERENCE_NOT_FOUND', `${message} (${slot.path})`, [{ path: slot.path, message }]);
      });
      slots.forEach((slot, index) => slot.set(resolved[index]));
    }),
  ).then(() => undefined);
}

/** The values a write gives a reference field: one slot per single reference, one per element of an array of them. */
function slotsOf(reference: ReferenceDefinition, data: FieldAccess): FieldSlot[] {
  return data.each(reference.field).flatMap((slot) => {
    if (slot.value == null) return []; // `null` clears a single reference
    if (!reference.isArray || !Array.isArray(slot.value)) return [slot];
    const array = slot.value as unknown[];
    return array.map((item, index) => {
      // In an array, `null` would be an element that names nothing.
      if (item === null) throw ModelRoutesException.validationFailed(`${slot.path}.${index}`, 'must be an identifier, not null');
      return { path: `${slot.path}.${index}`, value: item, set: (next: unknown) => void (array[index] = next) };
    });
  });
}

function asKey(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value instanceof Types.ObjectId) return value.toHexString();
  return undefined;
}

interface Targets {
  byId: Map<string, Types.ObjectId>;
  byField: Map<string, Types.ObjectId>;
}

async function findTargets(
  connection: Connection,
  reference: ReferenceDefinition,
  byId: string[],
  byField: string[],
  maxTimeMS: number,
  call: CallContext,
): Promise<Targets> {
  const { targetIdField: idField } = reference;
  const model = connection.model(reference.targetName);
  // One equality where there is one value: FerretDB pushes `{ _id: x }` down to its backend, not `$in` nor `$or`.
  const condition = (values: unknown[]) => (values.length === 1 ? values[0] : { $in: values });
  // A target outside the request's row scope is as missing as one that does not exist.
  const scope = readScopeOf(model, call);
  const find = (filter: Record<string, unknown>) =>
    model
      .find(allOf(scope, filter), { _id: 1, ...(idField === '_id' ? {} : { [idField]: 1 }) })
      .maxTimeMS(maxTimeMS)
      .lean()
      .exec() as Promise<Array<Record<string, unknown> & { _id: Types.ObjectId }>>;
  const ids = [...new Set(byId.map((id) => id.toLowerCase()))].map((id) => new Types.ObjectId(id));
  const [found, foundByField] = await Promise.all([
    ids.length ? find({ _id: condition(ids) }) : [],
    byField.length ? find({ [idField]: condition([...new Set(byField)]) }) : [],
  ]);
  const targets: Targets = { byId: new Map(), byField: new Map() };
  for (const doc of found) targets.byId.set(doc._id.toHexString(), doc._id);
  for (const doc of foundByField) targets.byField.set(String(doc[idField]), doc._id);
  return targets;
}
