import { Types } from 'mongoose';
import { attachEtag, etagOf } from '../concurrency/entity-tag.js';
import type { Precondition } from '../concurrency/conditional-write.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import type { CallContext } from '../call/call-context.js';
import { toMergeUpdate, withoutNulls, type MergeUpdate } from '../write/update-document.util.js';
import type { ElementRules } from '../write/element-rules.util.js';
import type { CoreWrite, DocumentStore, PlainDocument } from './document-store.js';
import { hasAtomicDocumentWrites } from './write-serializer.js';

/** How many times an element route writes again when other writes moved or changed its element in between. */
const ELEMENT_ATTEMPTS = 8;

/** What one element write makes of the element's position, the array and the raw document, as read. */
type ElementWrite = (
  index: number,
  elements: Array<Record<string, unknown>>,
  raw: Record<string, unknown>,
) => { update: Record<string, unknown>; merge?: MergeUpdate; condition: Record<string, unknown> };

/**
 * The writes of one element of an array of sub-documents (`/company/:id/offices/:office_id`),
 * under `ModelRepository`'s element methods (their rules and hooks are the repository's).
 */
export class ElementWrites<T> {
  constructor(private readonly store: DocumentStore<T>) {}

  /** See `ModelRepository.findElement()`. */
  async find(id: string, field: string, elementId: unknown, call: CallContext): Promise<Record<string, unknown> | null | undefined> {
    const doc = await this.store.findOne(id, call);
    if (!doc) return null;
    const element = elementOf(doc, field, elementId);
    return element && attachEtag(element, etagOf(doc)!);
  }

  /** See `ModelRepository.addElement()`. */
  async add(
    id: string,
    field: string,
    element: Record<string, unknown>,
    { rules, maxElements }: { rules: ElementRules; maxElements: number },
    precondition: Precondition | undefined,
    write: CoreWrite,
  ): Promise<{ doc: PlainDocument<T>; elementId: Types.ObjectId } | null> {
    const elementId = new Types.ObjectId();
    const data = { [field]: [{ _id: elementId, ...withoutNulls(element, rules) }] };
    const resolving = this.store.resolveReferences(data, write.call);
    if (resolving) await resolving;
    // `field.<max - 1>` exists once the array holds `maxElements`: checked in the write's own filter.
    const condition = { [`${field}.${maxElements - 1}`]: { $exists: false } };
    const doc = await this.store.findAndUpdate(id, { $push: { [field]: data[field][0] } }, { condition, precondition }, write);
    if (!doc) return null;
    if (!elementOf(doc, field, elementId)) {
      throw new ModelRoutesException(
        'MR_ARRAY_FULL',
        `${this.store.definition.name} '${id}' holds ${maxElements} elements in ${field}, its maximum: nothing was appended`,
        [{ path: field, message: `holds at most ${maxElements} elements` }],
      );
    }
    return { doc, elementId };
  }

  /** See `ModelRepository.updateElement()`. */
  async update(
    id: string,
    field: string,
    elementId: unknown,
    data: Record<string, unknown>,
    rules: ElementRules,
    precondition: Precondition | undefined,
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined> {
    const changes = { [field]: [data] };
    const resolving = this.store.resolveReferences(changes, write.call);
    if (resolving) await resolving;
    const merge = toMergeUpdate(changes[field][0], rules);
    return this.write(id, field, elementId, precondition, write, (index) => {
      const at = (update: Record<string, unknown> | undefined) =>
        update && Object.fromEntries(Object.entries(update).map(([path, value]) => [`${field}.${index}.${path}`, value]));
      const $set = at(merge.$set);
      const $unset = at(merge.$unset);
      const update = Object.assign({}, $set && { $set }, $unset && { $unset });
      return { update, merge: { $set: $set ?? {} }, condition: { [`${field}.${index}._id`]: elementId } };
    });
  }

  /** See `ModelRepository.removeElement()`. */
  async remove(
    id: string,
    field: string,
    elementId: unknown,
    precondition: Precondition | undefined,
    write: CoreWrite,
  ): Promise<PlainDocument<T> | null | undefined> {
    const atomic = await hasAtomicDocumentWrites(this.store.model.db);
    const { versionKey } = this.store.definition.fields;
    return this.write(id, field, elementId, precondition, write, (index, elements, raw) => {
      if (atomic) return { update: { $pull: { [field]: { _id: elementId } } }, condition: { [`${field}._id`]: elementId } };
      const unchanged = versionKey ? { [versionKey]: raw[versionKey] ?? null } : { [`${field}.${elements.length}`]: { $exists: false } };
      return {
        update: { $set: { [field]: elements.filter((_element, at) => at !== index) } },
        condition: { [`${field}.${index}._id`]: elementId, ...unchanged },
      };
    });
  }

  /**
   * Reads the document, finds the element, and writes what `make` makes of its position and the
   * array as stored (hidden fields included), until the write's condition holds: the element as read is still there.
   */
  private async write(
    id: string,
    field: string,
    elementId: unknown,
    precondition: Precondition | undefined,
    write: CoreWrite,
    make: ElementWrite,
  ): Promise<PlainDocument<T> | null | undefined> {
    for (let attempt = 0; attempt < ELEMENT_ATTEMPTS; attempt++) {
      const raw = await this.store.findRaw(id, write.call);
      if (!raw) return null;
      const elements = (Array.isArray(raw[field]) ? raw[field] : []) as Array<Record<string, unknown>>;
      const index = elements.findIndex((element) => element && String(element._id) === String(elementId));
      if (index < 0) return undefined;
      const { update, merge, condition } = make(index, elements, raw);
      if (Object.keys(update).length === 0) return this.store.conditions.unwritten(id, write.call, precondition, true);
      const doc = await this.store.findAndUpdate(id, update, { merge, condition, precondition, retry: true }, write);
      if (doc === null) return null;
      // Written, unless another write moved or changed the element in between: then again.
      if (doc) return doc;
    }
    throw new ModelRoutesException(
      'MR_ELEMENT_CONFLICT',
      `${this.store.definition.name} '${id}': other writes changed ${field} ${ELEMENT_ATTEMPTS} times while this one tried to write its element: nothing ` +
        `was written; try again`,
    );
  }
}

/** The element of the array `field` of a document whose `_id` is `elementId`, if it holds one. */
function elementOf(doc: Record<string, unknown>, field: string, elementId: unknown): Record<string, unknown> | undefined {
  const elements = doc[field];
  if (!Array.isArray(elements)) return undefined;
  return elements.find((element) => element && String((element as Record<string, unknown>)._id) === String(elementId)) as Record<string, unknown> | undefined;
}
