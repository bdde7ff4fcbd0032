import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';

/**
 * Real images, made by an image library (not byte strings that merely start with a signature):
 * a gradient whose pixels follow `seed`, so two calls with two seeds give two files.
 */
export async function makeImage(format: 'png' | 'jpeg' | 'webp', { width = 64, height = 48, seed = 1 } = {}): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + seed * 31 + (i % width)) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

/** The width and height of an image, as a decoder reads them. */
export async function dimensionsOf(bytes: Buffer): Promise<{ width?: number; height?: number; format?: string }> {
  const { width, height, format } = await sharp(bytes).metadata();
  return { width, height, format };
}

/**
 * An interlaced PNG of 16 bits per sample (RGB, one flat colour), made by sharp: it compresses to
 * a few kilobytes however many pixels it has, and costs a decoder width × height × 6 bytes at once.
 * Keep it to a few megapixels: sharp holds it whole while it writes it.
 */
export function makeDeepInterlacedPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .toColourspace('rgb16')
    .png({ progressive: true })
    .toBuffer();
}

/**
 * The start of a PNG that says it is `width` × `height` (a "pixel flood"): a real signature and
 * header chunk, then one small data chunk and the end chunk. A few dozen bytes, whatever the
 * dimensions: a decoder reads the header and would then reserve width × height pixels.
 */
export function pngHeaderOnly(width: number, height: number, { bitDepth = 16, interlaced = true } = {}): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = bitDepth;
  header[9] = 2; // RGB
  header[12] = interlaced ? 1 : 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
