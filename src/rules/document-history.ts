import type { Types, Collection, Model } from 'mongoose';

/**
 * One version of a document, as its history keeps it: the state a write left (hidden fields
 * included), when, who, through which route, and what changed.
 *
 * @publicApi
 */
export interface HistoryEntry<T = Record<string, unknown>> {
  /** The document's version key after the write (a create: 0); a delete's is the version after the last. */
  version: number;
  at: Date;
  /** Who wrote (the resource's `history.actor` of the request), if known. */
  by?: string;
  /** The route that wrote (`PATCH /company/:company_id`), if a generated route did. */
  route?: string;
  /** What the write did, as the hooks are told (`update`, `addReference`, `delete`, `revert`...). */
  operation: string;
  /** The paths it changed (an update; the field of a write of one field). */
  changed?: string[];
  /** The document as the write left it (a delete: as it was). */
  document: T;
}

/**
 * A page of a document's history: its versions, the latest first, and how many are kept.
 *
 * @publicApi
 */
export interface HistoryPage<T = Record<string, unknown>> {
  result: Array<HistoryEntry<T>>;
  status: { count: number; limit: number; skip: number };
}

/**
 * The history of one resource's documents, in the collection `<collection>_history`: one entry per
 * stored write, the latest `keep` per document: what the history stage (`HistoryStage`) records
 * of each write, from the state its `WriteRecord` noted.
 */
export class DocumentHistory {
  private indexed?: Promise<unknown>;

  constructor(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a model of any schema: Mongoose has no narrower type that every model fits
    private readonly model: Model<any>,
    private readonly keep: number,
    private readonly versionKey: string,
  ) {}

  private get collection(): Collection {
    return this.model.db.collection(`${this.model.collection.collectionName}_history`);
  }

  /** Keeps a write's state, then removes the versions of the document past `keep`. */
  async record(
    { state, removed }: { state: Record<string, unknown>; removed: boolean },
    entry: Omit<HistoryEntry, 'version' | 'document' | 'at'>,
  ): Promise<void> {
    await this.index();
    const stored = Number(state[this.versionKey] ?? 0);
    // A delete leaves no new version: its entry comes after the last one.
    const version = removed ? stored + 1 : stored;
    const document = state._id;
    await this.collection.insertOne({ document, version, at: new Date(), ...withoutUndefined(entry), state });
    if (version >= this.keep) await this.collection.deleteMany({ document, version: { $lte: version - this.keep } });
  }

  /** The entries of a document, the latest first, with their raw states. */
  async list(
    document: Types.ObjectId,
    { limit, skip }: { limit: number; skip: number },
  ): Promise<{ entries: Array<HistoryEntry<Record<string, unknown>>>; count: number }> {
    const [found, count] = await Promise.all([
      this.collection.find({ document }).sort({ version: -1, _id: -1 }).skip(skip).limit(limit).toArray(),
      this.collection.countDocuments({ document }),
    ]);
    return { entries: found.map(toEntry), count };
  }

  /** The entry of one version of a document; `null` when its history holds none. */
  async entry(document: Types.ObjectId, version: number): Promise<HistoryEntry<Record<string, unknown>> | null> {
    const found = await this.collection.find({ document, version }).sort({ _id: -1 }).limit(1).toArray();
    return found.length ? toEntry(found[0]) : null;
  }

  private index(): Promise<unknown> {
    this.indexed ??= this.collection.createIndex({ document: 1, version: -1 }).catch((error: unknown) => {
      this.indexed = undefined;
      throw error;
    });
    return this.indexed;
  }
}

function toEntry(raw: Record<string, unknown>): HistoryEntry<Record<string, unknown>> {
  const { version, at, by, route, operation, changed, state } = raw as unknown as HistoryEntry & { state: Record<string, unknown> };
  return {
    version,
    at,
    ...(by !== undefined && { by }),
    ...(route !== undefined && { route }),
    operation,
    ...(changed !== undefined && { changed }),
    document: state,
  };
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}
