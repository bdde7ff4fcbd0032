import sharp from 'sharp';

/**
 * Real images, made by an image library (not byte strings that merely start with a signature):
 * a gradient whose pixels follow `seed`, so two calls with two seeds give two files.
 */
export async function makeImage(format: 'png' | 'jpeg' | 'webp', { width = 64, height = 48, seed = 1 } = {}): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7 + seed * 31 + (i % width)) & 0xff;
  return sharp(pixels, { raw: { width, height, channels: 3 } }).toFormat(format).toBuffer();
}

/** The width and height of an image, as a decoder reads them. */
export async function dimensionsOf(bytes: Buffer): Promise<{ width?: number; height?: number; format?: string }> {
  const { width, height, format } = await sharp(bytes).metadata();
  return { width, height, format };
}
