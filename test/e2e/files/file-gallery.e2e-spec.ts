/**
 * A gallery's bounds (issue 23, item 6): at most `maxFiles` files (default 100), past it a 409
 * `MR_GALLERY_FULL` naming the bound, also when adds race for the last place; deleting a document
 * deletes its files in a few commands, not a few per file.
 */
import { Prop, Schema } from '@nestjs/mongoose';
import mongoose from 'mongoose';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileGallerySpec(): void {
  @GeneratedResource()
  @Schema()
  class Album {
    @Prop({ required: true }) title!: string;
    @FileProp({ maxFiles: 3, accept: ['image/png'] }) covers!: FileRef[];
    @FileProp({ maxFiles: 40, accept: ['image/png'] }) pages!: FileRef[];
  }

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Album] });
    png = await makeImage('png', { seed: 4 });
  });
  beforeEach(async () => {
    for (const name of ['albums', 'albums_files.files', 'albums_files.chunks']) await t.connection.db!.collection(name).deleteMany({});
  });

  const album = async () => (await t.http().post('/album').send({ title: 'A' }).expect(201)).body._id as string;
  const add = (id: string, field = 'covers') => t.http().post(`/album/${id}/${field}`).set('Content-Type', 'image/png').send(png);
  const stored = async () => ({
    files: await t.connection.db!.collection('albums_files.files').countDocuments(),
    chunks: await t.connection.db!.collection('albums_files.chunks').countDocuments(),
  });

  describe('maxFiles', () => {
    it('refuses a file past the bound with 409 MR_GALLERY_FULL naming it, stores nothing, and takes one again once a file is deleted', async () => {
      const id = await album();
      for (let n = 0; n < 3; n++) expect((await add(id)).status).toBe(201);
      const response = await add(id);
      expectError(response, 409, 'MR_GALLERY_FULL');
      expect(response.body.message).toBe('Album.covers: the gallery holds its largest number of files, 3 (maxFiles): delete one before adding another');
      expect(response.body.details).toEqual([{ path: 'file', message: expect.stringContaining('maxFiles') }]);
      expect(await stored()).toEqual({ files: 3, chunks: 3 });
      const covers = (await t.http().get(`/album/${id}`).expect(200)).body.covers as FileRef[];
      expect(covers).toHaveLength(3);
      await t
        .http()
        .delete(`/album/${id}/covers/${String(covers[0]._id)}`)
        .expect(200);
      expect((await add(id)).status).toBe(201);
    });

    it('of 4 adds racing for the last place, exactly one lands; the others answer 409 and keep no file', async () => {
      const id = await album();
      for (let n = 0; n < 2; n++) await add(id).expect(201);
      const statuses = (await Promise.all(Array.from({ length: 4 }, () => add(id)))).map((response) => response.status);
      expect(statuses.sort()).toEqual([201, 409, 409, 409]);
      expect((await t.http().get(`/album/${id}`).expect(200)).body.covers).toHaveLength(3);
      expect(await stored()).toEqual({ files: 3, chunks: 3 });
    });
  });

  describe('deleting a document with many files', () => {
    it('deletes its 30 files and their chunks in 3 commands to the bucket (one find, two deleteMany), not 3 per file', async () => {
      const id = await album();
      for (let n = 0; n < 30; n++) await add(id, 'pages').expect(201);
      expect(await stored()).toEqual({ files: 30, chunks: 30 });
      const commands: string[] = [];
      const prototype = mongoose.mongo.Collection.prototype as unknown as Record<
        'find' | 'deleteMany' | 'deleteOne',
        (this: mongoose.mongo.Collection, ...args: unknown[]) => unknown
      >;
      const originals = { find: prototype.find, deleteMany: prototype.deleteMany, deleteOne: prototype.deleteOne };
      for (const name of ['find', 'deleteMany', 'deleteOne'] as const) {
        prototype[name] = function (this: mongoose.mongo.Collection, ...args: unknown[]) {
          if (this.collectionName.startsWith('albums_files.')) commands.push(`${name} ${this.collectionName}`);
          return originals[name].apply(this, args);
        };
      }
      try {
        await t.http().delete(`/album/${id}`).expect(200);
      } finally {
        Object.assign(prototype, originals);
      }
      expect(commands).toEqual(['find albums_files.files', 'deleteMany albums_files.chunks', 'deleteMany albums_files.files']);
      expect(await stored()).toEqual({ files: 0, chunks: 0 });
    });
  });
}
