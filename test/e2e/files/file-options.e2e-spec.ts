/**
 * File fields (issue 14), configured: routes disabled, guarded and decorated like every other
 * route, `requireIfMatch`, SVG served as an attachment unless listed inline, the orphan sweep,
 * and the start-up errors of a wrong declaration.
 */
import { Header, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import mongoose from 'mongoose';
import { FileProp, FileRef, GeneratedResource, ModelRoutesModule, getModelRepositoryToken, type ModelRepository } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function fileOptionsSpec(): void {
  @Injectable()
  class KeyGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-key'] === 'open';
    }
  }

  const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><rect width="4" height="4"/></svg>');

  @GeneratedResource({
    requireIfMatch: true,
    files: {
      badge: { deleteFile: false, upload: { guards: [KeyGuard] }, download: { decorators: [Header('X-Served-By', 'badge')] } },
    },
  })
  @Schema()
  class Poster {
    @Prop() title?: string;
    @FileProp({ accept: ['image/png', 'image/svg+xml'] }) badge?: FileRef;
    @FileProp({ accept: ['image/svg+xml'], inline: ['image/svg+xml'] }) icon?: FileRef;
    @FileProp({ variants: { sizes: [32, 64], formats: ['webp'] } }) thumb?: FileRef;
  }

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Poster], files: { download: { decorators: [Header('X-Files', 'yes')] } } });
    png = await makeImage('png');
  });

  const poster = async () => {
    const response = await t.http().post('/poster').send({ title: 'A' }).expect(201);
    return { id: response.body._id as string, etag: response.headers.etag as string };
  };

  describe('route options of file fields', () => {
    it('a disabled route is absent: DELETE /poster/:poster_id/badge answers 405 (the path serves other methods)', async () => {
      const { id } = await poster();
      const response = await t.http().delete(`/poster/${id}/badge`);
      expect(response.status).toBe(405);
      expect(response.headers.allow).toContain('PUT');
    });

    it('a guard guards its route: PUT without the key is a 403, nothing stored', async () => {
      const { id, etag } = await poster();
      expectError(await t.http().put(`/poster/${id}/badge`).set('If-Match', etag).set('Content-Type', 'image/png').send(png), 403, 'MR_FORBIDDEN');
      expect(await t.connection.db!.collection('posters_files.files').countDocuments({ 'metadata.document': new mongoose.Types.ObjectId(id) })).toBe(0);
      await t.http().put(`/poster/${id}/badge`).set('x-key', 'open').set('If-Match', etag).set('Content-Type', 'image/png').send(png).expect(200);
    });

    it("decorators apply: the field's own, over forRoot({ files })'s", async () => {
      const { id, etag } = await poster();
      const uploaded = await t.http().put(`/poster/${id}/icon`).set('If-Match', etag).set('Content-Type', 'image/svg+xml').send(SVG).expect(200);
      expect((await t.http().get(`/poster/${id}/icon`).expect(200)).headers['x-files']).toBe('yes');
      await t
        .http()
        .put(`/poster/${id}/badge`)
        .set('x-key', 'open')
        .set('If-Match', uploaded.headers.etag)
        .set('Content-Type', 'image/png')
        .send(png)
        .expect(200);
      const badge = await t.http().get(`/poster/${id}/badge`).expect(200);
      expect(badge.headers['x-served-by']).toBe('badge');
      expect(badge.headers['x-files']).toBeUndefined();
    });

    it('requireIfMatch covers the file writes: 428 without If-Match', async () => {
      const { id } = await poster();
      expectError(await t.http().put(`/poster/${id}/icon`).set('Content-Type', 'image/svg+xml').send(SVG), 428, 'MR_PRECONDITION_REQUIRED');
    });
  });

  describe('variants.sizes', () => {
    it('takes the listed sizes only', async () => {
      const { id, etag } = await poster();
      await t.http().put(`/poster/${id}/thumb`).set('If-Match', etag).set('Content-Type', 'image/png').send(png).expect(200);
      await t.http().get(`/poster/${id}/thumb?w=32&h=64&format=webp`).expect(200);
      const refused = await t.http().get(`/poster/${id}/thumb?w=48`);
      expectError(refused, 400, 'MR_INVALID_QUERY');
      expect(refused.body.message).toBe('w must be one of 32, 64');
    });
  });

  describe('SVG', () => {
    it('is served as an attachment unless the field lists it inline', async () => {
      const { id, etag } = await poster();
      const first = await t
        .http()
        .put(`/poster/${id}/badge`)
        .set('x-key', 'open')
        .set('If-Match', etag)
        .set('Content-Type', 'image/svg+xml')
        .send(SVG)
        .expect(200);
      expect(first.body.badge.contentType).toBe('image/svg+xml');
      const badge = await t.http().get(`/poster/${id}/badge`).expect(200);
      expect(badge.headers['content-disposition']).toMatch(/^attachment;/);
      await t.http().put(`/poster/${id}/icon`).set('If-Match', first.headers.etag).set('Content-Type', 'image/svg+xml').send(SVG).expect(200);
      const icon = await t.http().get(`/poster/${id}/icon`).expect(200);
      expect(icon.headers['content-disposition']).toMatch(/^inline;/);
      expect(icon.headers['content-security-policy']).toContain('sandbox');
      expect(icon.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('the orphan sweep: repository.removeOrphanFiles()', () => {
    it('deletes the files no document holds and chunks without a file, and keeps the others', async () => {
      const { id, etag } = await poster();
      const kept = (await t.http().put(`/poster/${id}/badge`).set('x-key', 'open').set('If-Match', etag).set('Content-Type', 'image/png').send(png).expect(200))
        .body.badge;
      const bucket = new mongoose.mongo.GridFSBucket(t.connection.db!, { bucketName: 'posters_files' });
      // What a process stopped between storing a file and writing its document leaves:
      const unheld = bucket.openUploadStream('lost.png', { metadata: { resource: 'Poster', document: new mongoose.Types.ObjectId(id), field: 'badge' } });
      unheld.end(png);
      await new Promise((resolve) => unheld.once('finish', resolve));
      // ...and a process stopped mid-upload: chunks, no file.
      await t.connection
        .db!.collection('posters_files.chunks')
        .insertOne({ files_id: new mongoose.Types.ObjectId(), n: 0, data: new mongoose.mongo.Binary(Buffer.from('x')) });
      const repository = t.app.get<ModelRepository>(getModelRepositoryToken('Poster'));
      expect(await repository.removeOrphanFiles({ olderThanMs: 60_000 })).toBe(0); // too young to be sure
      expect(await repository.removeOrphanFiles({ olderThanMs: -1000 })).toBe(2);
      const left = await t.connection
        .db!.collection('posters_files.files')
        .find({}, { projection: { _id: 1 } })
        .toArray();
      expect(left.map((file) => String(file._id))).toContain(kept._id);
      expect(left.map((file) => String(file._id))).not.toContain(String(unheld.id));
      expect(await t.connection.db!.collection('posters_files.chunks').countDocuments({ files_id: { $nin: left.map((file) => file._id) } })).toBe(0);
      expect((await t.http().get(`/poster/${id}/badge`).expect(200)).headers['content-type']).toBe('image/png');
    });
  });

  describe('start-up errors', () => {
    it.each([
      [{ maxSize: 'ten' }, /maxSize/],
      [{ accept: [] }, /accept/],
      [{ accept: ['image/png'], inline: ['image/svg+xml'] }, /inline/],
      [{ accept: ['application/pdf'], variants: true }, /variants/],
    ])('@FileProp(%p) is refused where it is declared', (options, message) => {
      expect(() => {
        @Schema()
        class Wrong {
          @FileProp(options as never) file?: FileRef;
        }
        return SchemaFactory.createForClass(Wrong);
      }).toThrow(message);
    });

    it('a files option that names no file field, or no file route, is refused by forRoot', () => {
      @GeneratedResource({ files: { title: { download: false } } })
      @Schema()
      class NoFile {
        @Prop() title?: string;
      }
      expect(() => ModelRoutesModule.forRoot({ resources: [NoFile] })).toThrow(/names no file field/);
      expect(() => ModelRoutesModule.forRoot({ resources: [Poster], files: { fetch: false } as never })).toThrow(/there is no route 'fetch'/);
    });
  });

  it('a file route that no resource has is no route', async () => {
    const { id } = await poster();
    expectNoRoute(await t.http().get(`/poster/${id}/title`));
  });
}
