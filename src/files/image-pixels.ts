import type { Types } from 'mongoose';
import { fileError } from './file-errors.js';
import type { FileRef } from './file-ref.js';
import type { FileStore } from './file-store.js';

type Sharp = typeof import('sharp').default;

/** What the header of an image says it costs to decode. */
export interface ImageHeader {
  width: number;
  height: number;
  /** Interlaced (PNG, GIF) or progressive (JPEG): decoded whole before it can be shrunk. */
  interlaced: boolean;
  /** More than 8 bits per sample: twice the memory per pixel. */
  deep: boolean;
}

/** How many of an upload's first bytes are kept to read its header: enough for a JPEG's EXIF, ICC profile and thumbnail. */
export const HEADER_LENGTH = 512 * 1024;

/** The image types the resizer reads. */
export const RESIZABLE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/avif', 'image/gif']);

/**
 * The pixels an image counts for against `maxPixels`: width × height, twice when it is interlaced
 * or progressive (decoded whole, in memory, instead of a few lines at a time, and without the
 * shrink-on-load a plain JPEG gets), twice again at more than 8 bits per sample.
 */
export function weightedPixels(header: ImageHeader): number {
  return header.width * header.height * (header.interlaced ? 2 : 1) * (header.deep ? 2 : 1);
}

/** The header of an image, read without decoding its pixels; `undefined` when the bytes are not an image sharp reads. */
export async function readImageHeader(sharp: Sharp, bytes: Buffer): Promise<ImageHeader | undefined> {
  try {
    const { width, height, isProgressive, depth } = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (!width || !height) return undefined;
    return { width, height, interlaced: isProgressive === true, deep: depth !== undefined && depth !== 'uchar' && depth !== 'char' };
  } catch {
    return undefined;
  }
}

/** `10000 × 10000 pixels (100 megapixels), interlaced, more than 8 bits per sample: it counts as 400 megapixels` */
export function describePixels(header: ImageHeader): string {
  const traits = [header.interlaced && 'interlaced', header.deep && 'more than 8 bits per sample'].filter(Boolean);
  const size = `${header.width} × ${header.height} pixels (${megapixels(header.width * header.height)} megapixels)`;
  return traits.length ? `${size}, ${traits.join(', ')}: it counts as ${megapixels(weightedPixels(header))} megapixels` : size;
}

export function megapixels(pixels: number): string {
  return String(Math.round(pixels / 1e4) / 100);
}

/**
 * Keeps the first `HEADER_LENGTH` bytes of an upload as they stream by, so that its dimensions
 * can be read once it is stored, without reading it again (unless its header is further in).
 */
export class UploadHeader {
  private readonly chunks: Buffer[] = [];
  private length = 0;

  async *tap(source: AsyncIterable<Buffer>): AsyncIterable<Buffer> {
    for await (const chunk of source) {
      if (this.length < HEADER_LENGTH) {
        this.chunks.push(chunk.subarray(0, HEADER_LENGTH - this.length));
        this.length += Math.min(chunk.length, HEADER_LENGTH - this.length);
      }
      yield chunk;
    }
  }

  /**
   * Refuses an uploaded image of more than `maxPixels` weighted pixels with a 413
   * `MR_IMAGE_TOO_LARGE`. An image whose header cannot be read is let through: the resizer reads
   * the same header before any resize, and refuses it then (415).
   */
  async check(sharp: Sharp, store: FileStore, stored: FileRef, maxPixels: number, where: string): Promise<void> {
    if (!RESIZABLE_TYPES.has(stored.contentType)) return;
    let header = await readImageHeader(sharp, Buffer.concat(this.chunks));
    if (!header && stored.size > this.length) header = await readImageHeader(sharp, await readWhole(store, stored._id as Types.ObjectId));
    if (header && weightedPixels(header) > maxPixels) {
      throw fileError(
        'MR_IMAGE_TOO_LARGE',
        where,
        `the image is ${describePixels(header)}; this field takes at most ${megapixels(maxPixels)} megapixels (maxPixels)`,
      );
    }
  }
}

/** A stored file, whole: at most its field's `maxSize`. */
export async function readWhole(store: FileStore, id: Types.ObjectId): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of store.download(id)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
