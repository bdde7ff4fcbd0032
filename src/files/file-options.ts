import type { Schema } from 'mongoose';
import { ModelRoutesConfigError } from '../errors/model-routes-config.error.js';

/**
 * Options of `@FileProp()`.
 *
 * @publicApi
 */
export interface FilePropOptions {
  /** The largest file accepted: bytes, or a string such as `'512KB'`, `'5MB'`, `'1GB'` (powers of 1024). Default `'10MB'`. */
  maxSize?: number | string;
  /**
   * The media types accepted, checked against the file's first bytes, not the client's
   * `Content-Type`. Default: PNG, JPEG, GIF, WebP and AVIF images. SVG (`image/svg+xml`) and
   * HTML are refused unless listed: a browser runs their scripts.
   */
  accept?: string[];
  /**
   * The types a download shows in the browser (`Content-Disposition: inline`); every other type is
   * an attachment (downloaded, never rendered). Default: the raster images of `accept`. SVG is
   * served inline only when listed here.
   */
  inline?: string[];
  /**
   * Resized images on download (`?w=200&h=200&fit=cover&format=webp`), computed once and kept in
   * GridFS. Needs the `sharp` package. `true` takes the defaults (at most 2048 × 2048; formats
   * webp, avif, png, jpeg). Default false.
   */
  variants?: boolean | VariantOptions;
  /** `Cache-Control` of downloads. Default `'private, no-cache'`: caches keep the file and revalidate it by its `ETag`. */
  cacheControl?: string;
  /**
   * The longest an upload may wait for the next bytes of its body, in milliseconds: past it, a 408
   * `MR_REQUEST_TIMEOUT` that closes the connection (a client that falls silent holds nothing
   * longer). Time the server spends storing what arrived does not count. Default 30000.
   */
  bodyTimeout?: number;
  /**
   * A gallery's (`FileRef[]`) largest number of files: past it, adding one is a 409
   * `MR_GALLERY_FULL` (before the file is read); delete one first. Default 100. Galleries only.
   */
  maxFiles?: number;
}

/**
 * Limits of the resized variants of an image field.
 *
 * @publicApi
 */
export interface VariantOptions {
  /** Largest width a client may ask for. Default 2048. */
  maxWidth?: number;
  /** Largest height a client may ask for. Default 2048. */
  maxHeight?: number;
  /** The output formats a client may ask for. Default `['webp', 'avif', 'png', 'jpeg']`. */
  formats?: ImageFormat[];
  /**
   * The only widths and heights a client may ask for (`[64, 128, 256, 512]`): what a front end
   * uses, and nothing an attacker could multiply. Default: any up to `maxWidth` and `maxHeight`.
   */
  sizes?: number[];
  /**
   * How many variants of one file are made and kept in GridFS. Past it, a new variant is refused
   * (400 `MR_INVALID_QUERY`, naming the variants there are): none is ever computed for one request
   * only. List `sizes` and `formats` so that the variants your front end asks for are fewer.
   * Default 20.
   */
  maxPerFile?: number;
  /**
   * The largest image this field accepts, in pixels, weighted as `forRoot({ images: { maxPixels } })`
   * says (interlaced and 16-bit images count more): a larger one is a 413 `MR_IMAGE_TOO_LARGE` at
   * upload. Default: `forRoot`'s, 25,000,000.
   */
  maxPixels?: number;
}

/** Variant limits with their defaults (`maxPixels`: the registration's when absent). */
export type ResolvedVariants = Required<Omit<VariantOptions, 'sizes' | 'maxPixels'>> & { sizes?: readonly number[]; maxPixels?: number };

/** @publicApi */
export type ImageFormat = 'webp' | 'avif' | 'png' | 'jpeg';

/** A file field of a resource, as its routes need it. */
export interface FileFieldDefinition {
  /** Top-level field name: `logo`, the last segment of its routes' path. */
  field: string;
  /** `FileRef[]`: files are added and removed one by one, each under `/:file_id`. */
  gallery: boolean;
  maxSize: number;
  accept: readonly string[];
  inline: ReadonlySet<string>;
  variants?: ResolvedVariants;
  cacheControl: string;
  /** Milliseconds an upload waits for the next bytes of its body. */
  bodyTimeout: number;
  /** A gallery's largest number of files; `undefined` for a single file. */
  maxFiles?: number;
}

/** The schema type option under which `@FileProp()` records a field's options. */
export const FILE_OPTION = 'modelRoutesFile';

const RASTER_IMAGES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif'];
const IMAGE_FORMATS: readonly ImageFormat[] = ['webp', 'avif', 'png', 'jpeg'];
const UNITS: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };
const DEFAULT_MAX_SIZE = 10 * 1024 ** 2;
const DEFAULT_BODY_TIMEOUT = 30_000;
/** A gallery's files by default: each add rewrites the array and each file is deleted with its document. */
const DEFAULT_MAX_FILES = 100;

/** The options of one file field, checked and completed; `where` names it in errors (`Company.logo`). */
export function resolveFileOptions(options: FilePropOptions, field: string, gallery: boolean, where: string): FileFieldDefinition {
  const invalid = (message: string) => new ModelRoutesConfigError('MR_CONFIG_INVALID_OPTION', `${where}: @FileProp(): ${message}`);
  const accept = (options.accept ?? RASTER_IMAGES).map((type) => type.toLowerCase());
  if (accept.length === 0 || accept.some((type) => !/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type))) {
    throw invalid(`accept must list media types such as 'image/png' (got ${JSON.stringify(options.accept)}).`);
  }
  const inline = new Set((options.inline ?? accept.filter((type) => RASTER_IMAGES.includes(type))).map((type) => type.toLowerCase()));
  for (const type of inline) if (!accept.includes(type)) throw invalid(`inline lists '${type}', which accept does not.`);
  const bodyTimeout = options.bodyTimeout ?? DEFAULT_BODY_TIMEOUT;
  if (!Number.isSafeInteger(bodyTimeout) || bodyTimeout < 1)
    throw invalid(`bodyTimeout must be a number of milliseconds of at least 1 (got ${JSON.stringify(options.bodyTimeout)}).`);
  if (options.maxFiles !== undefined && !gallery) throw invalid('maxFiles bounds a gallery (FileRef[]); a single file field holds one file: remove it.');
  const maxFiles = options.maxFiles ?? DEFAULT_MAX_FILES;
  if (!Number.isSafeInteger(maxFiles) || maxFiles < 1) throw invalid(`maxFiles must be an integer of at least 1 (got ${JSON.stringify(options.maxFiles)}).`);
  return {
    field,
    gallery,
    maxSize: parseSize(options.maxSize ?? DEFAULT_MAX_SIZE, invalid),
    accept,
    inline,
    ...(options.variants && { variants: resolveVariants(options.variants, accept, invalid) }),
    cacheControl: options.cacheControl ?? 'private, no-cache',
    bodyTimeout,
    ...(gallery && { maxFiles }),
  };
}

function resolveVariants(given: true | VariantOptions, accept: readonly string[], invalid: (message: string) => Error): ResolvedVariants {
  const options = given === true ? {} : given;
  const variants: ResolvedVariants = {
    maxWidth: options.maxWidth ?? 2048,
    maxHeight: options.maxHeight ?? 2048,
    formats: options.formats ?? [...IMAGE_FORMATS],
    maxPerFile: options.maxPerFile ?? 20,
    ...(options.sizes && { sizes: [...options.sizes] }),
    ...(options.maxPixels !== undefined && { maxPixels: options.maxPixels }),
  };
  const dimension = (value: number) => Number.isSafeInteger(value) && value >= 1 && value <= 16384;
  for (const key of ['maxWidth', 'maxHeight'] as const) {
    if (!dimension(variants[key])) throw invalid(`variants.${key} must be an integer from 1 to 16384.`);
  }
  if (variants.sizes && (variants.sizes.length === 0 || !variants.sizes.every(dimension))) throw invalid('variants.sizes must list integers from 1 to 16384.');
  if (!Number.isSafeInteger(variants.maxPerFile) || variants.maxPerFile < 1) throw invalid('variants.maxPerFile must be an integer of at least 1.');
  if (variants.maxPixels !== undefined && !(Number.isSafeInteger(variants.maxPixels) && variants.maxPixels >= 1))
    throw invalid('variants.maxPixels must be an integer of at least 1.');
  const unknown = variants.formats.find((format) => !IMAGE_FORMATS.includes(format));
  if (unknown !== undefined || variants.formats.length === 0) throw invalid(`variants.formats must list some of ${IMAGE_FORMATS.join(', ')}.`);
  if (!accept.some((type) => RASTER_IMAGES.includes(type))) throw invalid('variants are resized images, but accept lists no raster image type.');
  return variants;
}

function parseSize(value: number | string, invalid: (message: string) => Error): number {
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(B|KB|MB|GB)\s*$/i.exec(value) : null;
  const bytes = typeof value === 'number' ? value : match ? Math.floor(Number(match[1]) * UNITS[match[2].toUpperCase()]) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw invalid(`maxSize must be a number of bytes or a size such as '5MB' (got ${JSON.stringify(value)}).`);
  return bytes;
}

/** The file fields of a schema: its top-level paths declared with `@FileProp()`. */
export function findFileFields(schema: Schema): FileFieldDefinition[] {
  const fields: FileFieldDefinition[] = [];
  schema.eachPath((path, type) => {
    const file = (type.options as Record<string, unknown> | undefined)?.[FILE_OPTION] as FileFieldDefinition | undefined;
    if (file && !path.includes('.')) fields.push(file);
  });
  return fields;
}
