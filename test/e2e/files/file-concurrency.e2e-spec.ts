/**
 * Uploads racing for one single-file field (issue 23, item 5): each upload that completes is
 * stored and replaces the file it found, exactly one file remains and none is orphaned; a race an
 * upload cannot win within its attempts is a 409 `MR_WRITE_CONFLICT` with `Retry-After`, never a 5xx.
 */
import { Prop, Schema } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { makeImage } from '../../support/images.js';
import { pollUntil } from '../../support/poll.js';
import { streamUpload } from '../../support/raw-upload.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileConcurrencySpec(): void {
  @GeneratedResource()
  @Schema()
  class Label {
    @Prop({ required: true }) name!: string;
    /** Large enough for a GridFS chunk (255 KiB) to be stored while an upload is held mid-body. */
    @FileProp({ maxSize: '1MB', accept: ['image/png'] }) logo?: FileRef;
  }

  const UPLOADS = 6;
  const ROUNDS = 3;

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Label] });
    png = await makeImage('png', { seed: 3 });
  });
  beforeEach(async () => {
    for (const name of ['labels', 'labels_files.files', 'labels_files.chunks']) await t.connection.db!.collection(name).deleteMany({});
  });

  const stored = async () => ({
    files: await t.connection.db!.collection('labels_files.files').countDocuments(),
    chunks: await t.connection.db!.collection('labels_files.chunks').countDocuments(),
  });

  describe('concurrent uploads to one single-file field', () => {
    it.each(Array.from({ length: ROUNDS }, (_, round) => round + 1))(
      `${UPLOADS} uploads held mid-body, then released together: all 200, one file kept, no orphan (round %i)`,
      async () => {
        const id = (await t.http().post('/label').send({ name: 'L' }).expect(201)).body._id as string;
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        // Each upload has read the document (no file yet) and stored its first chunk before any finishes:
        // all of them then try to store their file at about the same moment.
        const uploads = Array.from({ length: UPLOADS }, () =>
          streamUpload(t.app, `/label/${id}/logo`, { head: png, total: 320 * 1024, pauseAfter: { bytes: 288 * 1024, until: held } }),
        );
        expect((await pollUntil(stored, (counts) => counts.chunks >= UPLOADS, 60_000)).chunks).toBeGreaterThanOrEqual(UPLOADS);
        release();
        const results = await Promise.all(uploads);
        expect(results.map((result) => result.status)).toEqual(Array(UPLOADS).fill(200));
        const final = (await t.http().get(`/label/${id}`).expect(200)).body.logo as { _id: string };
        expect(results.map((result) => (result.body?.logo as { _id: string } | undefined)?._id)).toContain(final._id);
        const files = await t.connection.db!.collection('labels_files.files').find().toArray();
        expect(files.map((file) => String(file._id))).toEqual([final._id]);
        expect(await stored()).toEqual({ files: 1, chunks: 2 });
      },
      // Six uploads of 320 KiB held until each has stored a chunk: up to a minute on a busy machine.
      120_000,
    );

    it(
      'an upload that loses the race on every attempt (another process keeps replacing the file) answers 409 MR_WRITE_CONFLICT with Retry-After, and ' +
        'keeps no file of its own',
      async () => {
        const id = (await t.http().post('/label').send({ name: 'L' }).expect(201)).body._id as string;
        const model = t.connection.model('Label') as Model<unknown>;
        const collection = t.connection.db!.collection('labels');
        const rivals: string[] = [];
        // A writer the process does not know of (another instance of the app) stores a file in the
        // field each time, just before this process writes it.
        const original = model.findOneAndUpdate;
        model.findOneAndUpdate = function (this: Model<unknown>, ...args: Parameters<Model<unknown>['findOneAndUpdate']>) {
          const query = original.apply(this, args);
          const exec = query.exec.bind(query);
          query.exec = (async () => {
            const rival = new Types.ObjectId();
            rivals.push(String(rival));
            await collection.updateOne(
              { _id: new Types.ObjectId(id) },
              { $set: { logo: { _id: rival, name: 'rival.png', contentType: 'image/png', size: 1, uploadedAt: new Date() } } },
            );
            return exec();
          }) as typeof query.exec;
          return query;
        } as typeof model.findOneAndUpdate;
        try {
          const response = await t.http().put(`/label/${id}/logo`).set('Content-Type', 'image/png').send(png);
          expectError(response, 409, 'MR_WRITE_CONFLICT');
          expect(response.headers['retry-after']).toBe('1');
          expect(response.body.message).toContain('Label.logo');
        } finally {
          model.findOneAndUpdate = original;
        }
        expect(rivals.length).toBeGreaterThan(1);
        expect(await stored()).toEqual({ files: 0, chunks: 0 });
        // The rival's file is what the field holds: this upload changed nothing.
        expect(String((await collection.findOne({ _id: new Types.ObjectId(id) }))!.logo._id)).toBe(rivals[rivals.length - 1]);
        // With the rival gone, the same upload goes through.
        await t.http().put(`/label/${id}/logo`).set('Content-Type', 'image/png').send(png).expect(200);
        expect(await stored()).toEqual({ files: 1, chunks: 1 });
      },
    );
  });
}
