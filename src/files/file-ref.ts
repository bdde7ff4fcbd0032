import { Schema, Types } from 'mongoose';

/**
 * What a document holds of one stored file (`@FileProp() logo?: FileRef`, `photos: FileRef[]`):
 * its identifier in GridFS (`_id`, also the `:file_id` of a gallery's routes), and what its
 * routes answer without reading it. Written by the file routes only: clients cannot set it in a
 * create or update body.
 *
 * @publicApi
 */
export class FileRef {
  /** The file's `_id` in the resource's GridFS bucket. */
  _id!: Types.ObjectId;
  /** The file name, sanitised (no path, no control characters, at most 255 bytes). */
  name!: string;
  /** The media type read from the file's first bytes (what a download answers). */
  contentType!: string;
  /** Bytes. */
  size!: number;
  /** SHA-256 of the content, hex: the download's `ETag`. */
  sha256!: string;
  uploadedAt!: Date;
}

/**
 * The Mongoose schema of `FileRef`, as `@FileProp()` declares it.
 *
 * @publicApi
 */
export const FileRefSchema = new Schema<FileRef>(
  {
    _id: { type: Schema.Types.ObjectId, required: true },
    name: { type: String, required: true },
    contentType: { type: String, required: true },
    size: { type: Number, required: true },
    sha256: { type: String, required: true },
    uploadedAt: { type: Date, required: true },
  },
  { versionKey: false },
);
