/**
 * What an image may cost the server (issue 23, items 2 and 9): its pixels are read at upload and
 * bounded (interlaced and 16-bit images count more), the resizes run in a bounded queue (503 with
 * `Retry-After` past it), a file gets no variant beyond `maxPerFile` (none is computed for one
 * request only), and the image library's words never reach a client.
 */
import { once } from 'node:events';
import { Prop, Schema } from '@nestjs/mongoose';
import sharp from 'sharp';
import type { Response } from 'supertest';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { IMAGE_WORK } from '../../../src/constants.js';
import type { ImageWork } from '../../../src/files/image-work.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { dimensionsOf, makeDeepInterlacedPng, makeImage, pngHeaderOnly } from '../../support/images.js';
import { asBytes } from '../../support/binary-body.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function imageLimitsSpec(): void {
  @GeneratedResource()
  @Schema()
  class Picture {
    @Prop() title?: string;
    /** Its own limit, over forRoot's: one megapixel. */
    @FileProp({ maxSize: '1MB', variants: { maxPixels: 1_000_000, maxPerFile: 2 } }) image?: FileRef;
    /** forRoot's limit: two megapixels. */
    @FileProp({ maxSize: '1MB', variants: true }) poster?: FileRef;
    /** No variants: the pixels are nobody's concern. */
    @FileProp({ maxSize: '1MB' }) original?: FileRef;
  }

  const engine = useEngine();
  let t: TestApp;
  let work: ImageWork;

  beforeAll(async () => {
    // One resize at a time, one waiting: the queue's bound is reached with two requests.
    t = await createTestApp(engine, { resources: [Picture], images: { maxPixels: 2_000_000, concurrency: 1, queue: 1 } });
    work = t.app.get<ImageWork>(IMAGE_WORK, { strict: false });
  });

  const create = async () => (await t.http().post('/picture').send({ title: 'A' }).expect(201)).body._id as string;
  const put = (id: string, field: string, bytes: Buffer, type = 'image/png') => t.http().put(`/picture/${id}/${field}`).set('Content-Type', type).send(bytes);
  const files = () => t.connection.db!.collection('pictures_files.files').countDocuments();
  const binary = asBytes;

  describe('the pixels of an uploaded image are bounded at upload', () => {
    it(
      'refuses a "pixel flood" PNG (100 megapixels, interlaced, 16-bit, 100 bytes) with a 413 MR_IMAGE_TOO_LARGE naming the bound; nothing ' + 'is stored',
      async () => {
        const id = await create();
        const flood = pngHeaderOnly(10_000, 10_000);
        expect(flood.length).toBeLessThan(200);
        const before = await files();
        const response = await put(id, 'poster', flood);
        expectError(response, 413, 'MR_IMAGE_TOO_LARGE');
        expect(response.body.message).toBe(
          'Picture.poster: the image is 10000 × 10000 pixels (100 megapixels), interlaced, more than 8 bits per sample: it counts as 400 megapixels; this ' +
            'field takes at most 2 megapixels (maxPixels)',
        );
        expect(await files()).toBe(before);
        expect((await t.http().get(`/picture/${id}`).expect(200)).body.poster).toBeUndefined();
      },
    );

    it('counts an interlaced 16-bit image four times: 800 × 800 plain is taken by a 1-megapixel field, the same interlaced at 16 bits is not', async () => {
      const id = await create();
      const plain = await makeImage('png', { width: 800, height: 800 });
      const deep = await makeDeepInterlacedPng(800, 800);
      expect(deep.length).toBeLessThan(64 * 1024);
      await put(id, 'image', plain).expect(200);
      const response = await put(id, 'image', deep);
      expectError(response, 413, 'MR_IMAGE_TOO_LARGE');
      expect(response.body.message).toMatch(
        /800 × 800 pixels \(0\.64 megapixels\), interlaced, more than 8 bits per sample: it counts as 2\.56 megapixels; this field takes at most 1 megapixels/,
      );
    });

    it("a field's own maxPixels wins over forRoot({ images: { maxPixels } }), and a field without variants takes any image", async () => {
      const id = await create();
      const large = await makeImage('jpeg', { width: 1200, height: 1000 }); // 1.2 megapixels
      expectError(await put(id, 'image', large, 'image/jpeg'), 413, 'MR_IMAGE_TOO_LARGE');
      await put(id, 'poster', large, 'image/jpeg').expect(200);
      await put(id, 'original', pngHeaderOnly(10_000, 10_000)).expect(200);
    });

    it(
      'reads the header of a JPEG whose frame header comes after 520 KB of comments (past the first bytes kept on the way: read again from ' + 'GridFS)',
      async () => {
        const id = await create();
        // One flat colour: a few kilobytes.
        const jpeg = await sharp({ create: { width: 1100, height: 1000, channels: 3, background: '#808080' } })
          .jpeg()
          .toBuffer();
        // Eight comment segments (COM) of 65,000 bytes right after SOI, before the frame header.
        const comment = Buffer.alloc(65_004, 0x20);
        comment.writeUInt16BE(0xfffe, 0);
        comment.writeUInt16BE(65_002, 2);
        const padded = Buffer.concat([jpeg.subarray(0, 2), ...Array.from({ length: 8 }, () => comment), jpeg.subarray(2)]);
        expect(padded.length).toBeGreaterThan(512 * 1024);
        expect(padded.length).toBeLessThan(1024 * 1024);
        expectError(await put(id, 'image', padded, 'image/jpeg'), 413, 'MR_IMAGE_TOO_LARGE');
      },
    );
  });

  describe('resizes run in a bounded queue', () => {
    it('one running, one waiting: the next is a 503 MR_IMAGE_BUSY with Retry-After; the waiting one is served once the place is free', async () => {
      const id = await create();
      await put(id, 'poster', await makeImage('png', { width: 64, height: 64 })).expect(200);
      let release!: () => void;
      const held = work.run(() => new Promise<void>((resolve) => (release = resolve)), 'test');
      expect(work.running).toBe(1);
      const queued = once(work, 'queued');
      const waiting = binary(t.http().get(`/picture/${id}/poster?w=16`)).then((response) => response);
      await queued;
      expect(work.queued).toBe(1);
      const refused = await t.http().get(`/picture/${id}/poster?w=24`);
      expectError(refused, 503, 'MR_IMAGE_BUSY');
      expect(refused.headers['retry-after']).toBe('2');
      expect(refused.body.message).toMatch(/1 images are being resized and 1 wait/);
      release();
      await held;
      const served: Response = await waiting;
      expect(served.status).toBe(200);
      expect((await dimensionsOf(served.body as Buffer)).width).toBe(16);
      expect({ running: work.running, queued: work.queued }).toEqual({ running: 0, queued: 0 });
      // The refused size is made now that there is room.
      expect((await dimensionsOf((await binary(t.http().get(`/picture/${id}/poster?w=24`)).expect(200)).body as Buffer)).width).toBe(24);
    });
  });

  describe('a variant is never computed for one request only', () => {
    it('past maxPerFile, a new size is a 400 naming the bound and the sizes there are; the kept ones are still served, nothing recomputed', async () => {
      const id = await create();
      await put(id, 'image', await makeImage('png', { width: 64, height: 64 })).expect(200);
      await binary(t.http().get(`/picture/${id}/image?w=10`)).expect(200);
      await binary(t.http().get(`/picture/${id}/image?w=20`)).expect(200);
      const before = await files();
      const refused = await t.http().get(`/picture/${id}/image?w=30`);
      expectError(refused, 400, 'MR_INVALID_QUERY');
      expect(refused.body.details).toEqual([
        {
          path: 'w',
          message: 'Picture.image: this file has its 2 variants (variants.maxPerFile), and no other is made: ask for one of w10-h-cover.png, w20-h-cover.png',
        },
      ]);
      expect(await files()).toBe(before);
      expect((await dimensionsOf((await binary(t.http().get(`/picture/${id}/image?w=20`)).expect(200)).body as Buffer)).width).toBe(20);
    });
  });

  describe("errors in the library's words", () => {
    it("a JPEG cut short is stored (its header is whole), and its resize is a 415 with a fixed message, not the decoder's", async () => {
      const id = await create();
      const jpeg = await makeImage('jpeg', { width: 400, height: 300 });
      await put(id, 'poster', jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg').expect(200);
      const response = await t.http().get(`/picture/${id}/poster?w=32`);
      expectError(response, 415, 'MR_UNSUPPORTED_MEDIA_TYPE');
      expect(response.body.message).toBe('Picture.poster: the image cannot be resized: its content cannot be decoded');
    });

    it('Content-Disposition: inline; filename="" names the file `file` (it was a 400 with Mongoose\'s words)', async () => {
      const id = await create();
      const response = await put(id, 'original', await makeImage('png'))
        .set('Content-Disposition', 'inline; filename=""')
        .expect(200);
      expect(response.body.original.name).toBe('file');
    });
  });
}
