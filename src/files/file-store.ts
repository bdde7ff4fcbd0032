import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import mongoose, { Types, type Connection } from 'mongoose';
import { fileError, fileTooLarge } from './file-errors.js';
import { acceptedContentType, SNIFF_LENGTH } from './content-type.sniffer.js';
import type { FileRef } from './file-ref.js';
import type { FileFieldDefinition } from './file-options.js';

type Bucket = mongoose.mongo.GridFSBucket;

/** Chunks a download reads per batch: 4 × 255 KiB. */
const CHUNKS_PER_BATCH = 4;

const logger = new Logger('ModelRoutes');
type UploadStream = mongoose.mongo.GridFSBucketWriteStream;

/** Who a stored file belongs to: written in its GridFS `metadata`, read by the orphan sweep. */
export interface FileOwner {
  resource: string;
  /** The `_id` of the document. */
  document: unknown;
  field: string;
}

/** A file as GridFS describes it (the `files` collection), with the library's metadata. */
export interface StoredFile {
  _id: Types.ObjectId;
  length: number;
  uploadDate: Date;
  filename: string;
  metadata?: Partial<FileOwner> & { contentType?: string; sha256?: string; variantOf?: Types.ObjectId; variant?: string };
}

/**
 * The files of one resource, in a GridFS bucket of their own on the resource's connection, named
 * after its collection (`companies_files`: collections `companies_files.files` and
 * `companies_files.chunks`). Streams both ways; keeps a variant of an image (a resized copy) as a
 * file of the same bucket, deleted with its original.
 */
export class FileStore {
  private bucket?: Bucket;
  private indexed?: Promise<unknown>;

  constructor(
    private readonly connection: Connection,
    readonly bucketName: string,
  ) {}

  /**
   * Stores what `source` streams as one file, checking as it reads: at most `field.maxSize` bytes
   * (413 `MR_PAYLOAD_TOO_LARGE` as soon as one more arrives), a content type the field accepts,
   * read from the first bytes (415 `MR_UNSUPPORTED_MEDIA_TYPE`), not empty (400 `MR_INVALID_FILE`).
   * Whatever fails, the chunks written so far are deleted before it throws.
   */
  async upload(source: AsyncIterable<Buffer>, file: { name: string; declaredType?: string }, field: FileFieldDefinition, owner: FileOwner): Promise<FileRef> {
    const where = `${owner.resource}.${owner.field}`;
    const metadata: NonNullable<StoredFile['metadata']> = { ...owner };
    const upload = this.gridFs().openUploadStream(file.name, { metadata });
    // Its failures reach the writes' callbacks and `finish`; an 'error' event without a listener would crash the process.
    upload.on('error', () => undefined);
    const hash = createHash('sha256');
    let size = 0;
    let head: Buffer | undefined = Buffer.alloc(0);
    try {
      for await (const chunk of source) {
        size += chunk.length;
        if (size > field.maxSize) throw fileTooLarge(where, field.maxSize);
        hash.update(chunk);
        if (head) {
          head = Buffer.concat([head, chunk]);
          if (head.length < SNIFF_LENGTH) continue;
          metadata.contentType = acceptedContentType(head, file.declaredType, field.accept, where);
          await write(upload, head);
          head = undefined;
        } else {
          await write(upload, chunk);
        }
      }
      if (size === 0) throw fileError('MR_INVALID_FILE', where, 'the file is empty');
      if (head) {
        metadata.contentType = acceptedContentType(head, file.declaredType, field.accept, where);
        await write(upload, head);
      }
      metadata.sha256 = hash.digest('hex');
      upload.end();
      await once(upload, 'finish');
    } catch (error) {
      await discard(upload);
      throw error;
    }
    const stored = upload.gridFSFile!;
    return {
      _id: stored._id as Types.ObjectId,
      name: file.name,
      contentType: metadata.contentType!,
      size,
      sha256: metadata.sha256,
      uploadedAt: stored.uploadDate,
    };
  }

  /**
   * Streams the bytes `start` to `end` (exclusive) of a file, or all of it, reading its chunks
   * `CHUNKS_PER_BATCH` at a time. The driver's `openDownloadStream` asks for them without a batch
   * size, and FerretDB then answers up to 16 MiB of chunks at once (measured: 25 MiB more RSS per
   * large download in flight); this keeps a download to about one MiB, whatever the file's size.
   */
  download(id: Types.ObjectId, range?: { start: number; end: number }): Readable {
    return Readable.from(this.chunksOf(id, range), { objectMode: false });
  }

  private async *chunksOf(id: Types.ObjectId, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const file = await this.filesCollection().findOne({ _id: id }, { projection: { length: 1, chunkSize: 1 } });
    if (!file) throw new Error(`${this.bucketName}: no file ${String(id)}`);
    const { length, chunkSize } = file as StoredFile & { chunkSize: number };
    const start = range?.start ?? 0;
    const end = range?.end ?? length;
    if (end <= start) return;
    const first = Math.floor(start / chunkSize);
    const last = Math.ceil(end / chunkSize) - 1;
    const cursor = this.chunksCollection()
      .find<{ n: number; data: mongoose.mongo.Binary }>({ files_id: id, n: { $gte: first, $lte: last } }, { batchSize: CHUNKS_PER_BATCH })
      .sort({ n: 1 });
    let expected = first;
    for await (const chunk of cursor) {
      if (chunk.n !== expected) throw new Error(`${this.bucketName}: file ${String(id)} misses its chunk ${expected}`);
      const data = Buffer.from(chunk.data.buffer);
      const from = chunk.n === first ? start - first * chunkSize : 0;
      const to = chunk.n === last ? end - last * chunkSize : data.length;
      yield data.subarray(from, to);
      expected++;
    }
    if (expected !== last + 1) throw new Error(`${this.bucketName}: file ${String(id)} misses its chunk ${expected}`);
  }

  /**
   * Deletes files and every variant of them, in three commands whatever their number (a document
   * with a gallery of 300 files took 900 round trips, one file after the other). A file already
   * deleted is no error: deleting is safe to retry. Chunks first: a file whose chunks are gone and
   * whose entry remains is found again by the orphan sweep.
   */
  async delete(ids: readonly Types.ObjectId[]): Promise<void> {
    if (ids.length === 0) return;
    const variants = await this.filesCollection()
      .find({ 'metadata.variantOf': oneOrMany(ids) }, { projection: { _id: 1 } })
      .toArray();
    const files = oneOrMany([...ids, ...variants.map((variant) => variant._id)]);
    await this.chunksCollection().deleteMany({ files_id: files });
    await this.filesCollection().deleteMany({ _id: files });
  }

  /**
   * Deletes files that no document holds any more, after the document was written: a failure is
   * logged, not thrown, since the write the client asked for is done (the files are left to
   * `removeOrphanFiles()`).
   */
  async release(ids: readonly Types.ObjectId[]): Promise<void> {
    try {
      await this.delete(ids);
    } catch (error) {
      logger.warn(`${this.bucketName}: files ${ids.join(', ')} could not be deleted (${(error as Error).message}); removeOrphanFiles() will`);
    }
  }

  /** The stored variant of a file under `key` (`w200-h200-cover.webp`), if one was made. */
  findVariant(id: Types.ObjectId, key: string): Promise<StoredFile | null> {
    return this.variantIndex().then(() => this.filesCollection().findOne({ 'metadata.variantOf': id, 'metadata.variant': key }));
  }

  /** The keys of the variants kept of a file (`w200-h200-cover.webp`), in the order they were made. */
  async listVariants(id: Types.ObjectId): Promise<string[]> {
    const variants = await this.filesCollection()
      .find({ 'metadata.variantOf': id }, { projection: { 'metadata.variant': 1 } })
      .sort({ _id: 1 })
      .toArray();
    return variants.map((variant) => variant.metadata!.variant!);
  }

  /** Keeps `bytes` as the variant `key` of a file; returns its entry. */
  async saveVariant(id: Types.ObjectId, key: string, bytes: Buffer, contentType: string): Promise<StoredFile> {
    const metadata = { variantOf: id, variant: key, contentType, sha256: createHash('sha256').update(bytes).digest('hex') };
    const upload = this.gridFs().openUploadStream(key, { metadata });
    upload.end(bytes);
    await once(upload, 'finish');
    return upload.gridFSFile as StoredFile;
  }

  /**
   * Deletes what an interrupted process left in the bucket, older than `before`: files whose
   * document does not hold them (a crash between storing a file and writing its document, or
   * between writing a document and deleting the file it replaced), variants of files that are
   * gone, and chunks without a file (a crash mid-upload). `holds(owner, id)` tells whether the
   * owner's document still holds a file. Returns how many files (and chunk-only remains) it deleted.
   */
  async removeOrphans(before: Date, holds: (owner: FileOwner, id: Types.ObjectId) => Promise<boolean>): Promise<number> {
    const files = this.filesCollection();
    const orphans: Types.ObjectId[] = [];
    for await (const file of files.find({ uploadDate: { $lt: before } })) {
      const { metadata } = file;
      if (metadata?.variantOf) {
        if (!(await files.findOne({ _id: metadata.variantOf }, { projection: { _id: 1 } }))) orphans.push(file._id);
      } else if (!metadata?.resource || !(await holds(metadata as FileOwner, file._id))) {
        orphans.push(file._id);
      }
    }
    const chunked = await this.chunksCollection().distinct('files_id', { _id: { $lt: Types.ObjectId.createFromTime(Math.floor(before.getTime() / 1000)) } });
    const listed = new Set((await files.find({ _id: { $in: chunked } }, { projection: { _id: 1 } }).toArray()).map((file) => String(file._id)));
    const remains = chunked.filter((id) => !listed.has(String(id)));
    await this.delete([...orphans, ...remains]);
    return orphans.length + remains.length;
  }

  /** The entries of this bucket's files, for the orphan sweep. */
  filesCollection(): mongoose.mongo.Collection<StoredFile> {
    return this.connection.db!.collection<StoredFile>(`${this.bucketName}.files`);
  }

  /** The chunks of this bucket's files. */
  chunksCollection(): mongoose.mongo.Collection {
    return this.connection.db!.collection(`${this.bucketName}.chunks`);
  }

  private gridFs(): Bucket {
    // Created on first use: the connection's database is there once it has connected.
    this.bucket ??= new mongoose.mongo.GridFSBucket(this.connection.db!, { bucketName: this.bucketName });
    return this.bucket;
  }

  private variantIndex(): Promise<unknown> {
    this.indexed ??= this.filesCollection()
      .createIndex({ 'metadata.variantOf': 1, 'metadata.variant': 1 })
      .catch((error: unknown) => {
        this.indexed = undefined;
        throw error;
      });
    return this.indexed;
  }
}

/**
 * One equality where there is one id: FerretDB pushes `{ files_id: x }` down to its backend, not
 * `$in`, which it answers by reading every chunk of the bucket (a file's delete grew with the bucket's
 * size, and did not with an equality: BENCHMARKS.md, "Files: upload and download"). For
 * several files one such read costs less than a round trip per file; MongoDB serves both from the index.
 */
function oneOrMany(ids: readonly Types.ObjectId[]): Types.ObjectId | { $in: Types.ObjectId[] } {
  return ids.length === 1 ? ids[0] : { $in: [...ids] };
}

/**
 * Writes a piece and waits for its callback, which GridFS calls once it has stored the chunk the
 * piece completed (if any): nothing is in flight between two writes, so a cleanup sees every
 * chunk. (Waiting for `drain` only when `write()` returns false is not enough: a small piece that
 * completes a chunk returns true while its insert is under way, and that insert could land after
 * the cleanup; seen once as an abort's error after the answer.)
 */
function write(upload: UploadStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => upload.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/**
 * Deletes what an upload that failed wrote. `write()` waited for every flushed chunk, so no insert
 * is in flight: the chunks deleted are all there will be. The entry (`files`) is written last, by
 * `end()`, and so was not.
 */
async function discard(upload: UploadStream): Promise<void> {
  try {
    await upload.abort();
  } catch {
    // Already finished (the entry exists) or aborted: delete both by id.
    await upload.bucket.delete(upload.id as Types.ObjectId).catch(() => undefined);
  }
}
