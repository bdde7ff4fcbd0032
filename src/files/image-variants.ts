import { Logger } from '@nestjs/common';
import type { Types } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { fileError } from './file-errors.js';
import type { FileRef } from './file-ref.js';
import type { FileFieldDefinition, ImageFormat } from './file-options.js';
import type { Servable } from './file-download.js';
import type { FileStore, StoredFile } from './file-store.js';
import { describePixels, megapixels, readImageHeader, readWhole, weightedPixels } from './image-pixels.js';
import { imageBusy, type ImageWork } from './image-work.js';

/** A resized image a client asks for: `?w=200&h=200&fit=cover&format=webp`. */
export interface VariantRequest {
  width?: number;
  height?: number;
  fit: Fit;
  format: ImageFormat;
  /** Its name among the variants of a file: `w200-h200-cover.webp`. */
  key: string;
}

type Fit = 'cover' | 'contain' | 'fill' | 'inside' | 'outside';
const FITS: readonly Fit[] = ['cover', 'contain', 'fill', 'inside', 'outside'];
const PARAMETERS = ['w', 'h', 'fit', 'format'];
/** The image types the resizer reads. */
const READABLE: Record<string, ImageFormat | undefined> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/webp': 'webp',
  'image/avif': 'avif',
  'image/gif': undefined,
};
const CONTENT_TYPES: Record<ImageFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', avif: 'image/avif' };
const logger = new Logger('ModelRoutes');

/**
 * The variant a download's query asks for, or `undefined` for the file itself. Only `w`, `h`
 * (integers up to the field's limits), `fit` and `format` (one of the field's) are taken; anything
 * else, or any of them on a field without variants or a file that is not an image, is a 400
 * `MR_INVALID_QUERY`.
 */
export function variantOf(query: Record<string, unknown>, field: FileFieldDefinition, file: FileRef): VariantRequest | undefined {
  const keys = Object.keys(query);
  if (keys.length === 0) return undefined;
  const unknown = keys.find((key) => !PARAMETERS.includes(key));
  if (unknown) throw ModelRoutesException.invalidQuery(unknown, `Unknown parameter '${unknown}': a download takes ${PARAMETERS.join(', ')}`);
  const variants = field.variants;
  if (!variants) throw ModelRoutesException.invalidQuery(keys[0], `${field.field} has no resized variants (@FileProp({ variants }))`);
  if (!(file.contentType in READABLE)) throw ModelRoutesException.invalidQuery(keys[0], `The file is ${file.contentType}, not an image that can be resized`);
  const width = dimension(query, 'w', variants.maxWidth, variants.sizes);
  const height = dimension(query, 'h', variants.maxHeight, variants.sizes);
  const fit = (text(query, 'fit') ?? 'cover') as Fit;
  if (!FITS.includes(fit)) throw ModelRoutesException.invalidQuery('fit', `fit must be one of ${FITS.join(', ')}`);
  const format = (text(query, 'format') ?? READABLE[file.contentType] ?? 'png') as ImageFormat;
  if (!variants.formats.includes(format)) throw ModelRoutesException.invalidQuery('format', `format must be one of ${variants.formats.join(', ')}`);
  return { width, height, fit, format, key: `w${width ?? ''}-h${height ?? ''}-${fit}.${format}` };
}

function text(query: Record<string, unknown>, key: string): string | undefined {
  const value = query[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ModelRoutesException.invalidQuery(key, `${key} must be given once, as a plain value`);
  return value;
}

function dimension(query: Record<string, unknown>, key: string, max: number, sizes: readonly number[] | undefined): number | undefined {
  const value = text(query, key);
  if (value === undefined) return undefined;
  const number = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(number >= 1 && number <= max)) throw ModelRoutesException.invalidQuery(key, `${key} must be an integer from 1 to ${max}`);
  if (sizes && !sizes.includes(number)) throw ModelRoutesException.invalidQuery(key, `${key} must be one of ${sizes.join(', ')}`);
  return number;
}

type Sharp = typeof import('sharp').default;
let loading: Promise<Sharp> | undefined;

/** The `sharp` package, loaded once, when a field with variants is served; a startup error names the fix when it is missing. */
export function loadSharp(where: string): Promise<Sharp> {
  loading ??= import('sharp').then(
    (module) => module.default,
    () => {
      loading = undefined;
      throw new ModelRoutesConfigError(
        'MR_CONFIG_INVALID_OPTION',
        `${where}: @FileProp({ variants }) resizes images with the sharp package: npm install sharp`,
      );
    },
  );
  return loading;
}

/** Variants being computed, by bucket, file and key: two requests for one variant compute it once. */
const inFlight = new Map<string, Promise<Servable>>();

/**
 * A variant of an image, as a download serves it: the stored one, or else computed once, in the
 * registration's `ImageWork` queue, and kept in the field's bucket. A file that already has
 * `maxPerFile` variants gets no new one: a 400 `MR_INVALID_QUERY` that names the bound and the
 * variants there are (a variant is never computed for one request only). An image the resizer
 * cannot decode, or of more pixels than the field's `maxPixels`, is a 415
 * `MR_UNSUPPORTED_MEDIA_TYPE` with a message of the library's (the resizer's own words go to the log).
 */
export async function variantOfFile(
  store: FileStore,
  file: FileRef,
  variant: VariantRequest,
  field: FileFieldDefinition,
  work: ImageWork,
  where: string,
): Promise<Servable> {
  const id = file._id as Types.ObjectId;
  const name = `${file.name.replace(/\.[^.]*$/, '')}-${variant.key}`;
  const found = await store.findVariant(id, variant.key);
  if (found) return storedServable(store, found, name);
  const key = `${store.bucketName}/${String(id)}/${variant.key}`;
  let computing = inFlight.get(key);
  if (!computing) {
    computing = (async () => {
      const { maxPerFile } = field.variants!;
      const kept = await store.listVariants(id);
      if (kept.length >= maxPerFile) {
        const path = variant.width !== undefined ? 'w' : variant.height !== undefined ? 'h' : 'format';
        throw ModelRoutesException.invalidQuery(
          path,
          `${where}: this file has its ${maxPerFile} variants (variants.maxPerFile), and no other is made: ask for one of ${kept.join(', ')}`,
        );
      }
      const maxPixels = field.variants!.maxPixels ?? work.options.maxPixels;
      const bytes = await work.run(() => computeVariant(store, id, variant, maxPixels, work.options.timeout, where), where);
      return storedServable(store, await store.saveVariant(id, variant.key, bytes, CONTENT_TYPES[variant.format]), name);
    })().finally(() => inFlight.delete(key));
    inFlight.set(key, computing);
  }
  return computing;
}

function storedServable(store: FileStore, stored: StoredFile, name: string): Servable {
  const { contentType, sha256 } = stored.metadata as { contentType: string; sha256: string };
  return { name, contentType, size: stored.length, sha256, uploadedAt: stored.uploadDate, open: (range) => store.download(stored._id, range) };
}

async function computeVariant(
  store: FileStore,
  id: Types.ObjectId,
  variant: VariantRequest,
  maxPixels: number,
  timeout: number,
  where: string,
): Promise<Buffer> {
  const sharp = await loadSharp(where);
  const original = await readWhole(store, id);
  const header = await readImageHeader(sharp, original);
  if (!header) throw cannotResize(where, id, 'its header cannot be read');
  if (weightedPixels(header) > maxPixels) {
    // Stored before the limit was lowered: it is never decoded.
    throw fileError(
      'MR_UNSUPPORTED_MEDIA_TYPE',
      where,
      `the image cannot be resized: it is ${describePixels(header)}, more than the ${megapixels(maxPixels)} megapixels this field resizes (maxPixels)`,
    );
  }
  try {
    return await sharp(original, { limitInputPixels: header.width * header.height })
      .rotate() // as the camera held it (EXIF orientation)
      .resize({ width: variant.width, height: variant.height, fit: variant.fit, withoutEnlargement: true })
      .toFormat(variant.format)
      .timeout({ seconds: timeout })
      .toBuffer();
  } catch (error) {
    const detail = (error as Error).message;
    if (/\btimeout: \d+% complete/.test(detail)) {
      logger.warn(`${where}: resizing file ${String(id)} took more than ${timeout} s (forRoot({ images: { timeout } })): ${detail}`);
      throw imageBusy(where, `the image took more than ${timeout} seconds to resize`);
    }
    throw cannotResize(where, id, detail);
  }
}

/** A 415 in the library's words; the resizer's own go to the log. */
function cannotResize(where: string, id: Types.ObjectId, detail: string) {
  logger.warn(`${where}: file ${String(id)} cannot be resized: ${detail}`);
  return fileError('MR_UNSUPPORTED_MEDIA_TYPE', where, 'the image cannot be resized: its content cannot be decoded');
}
