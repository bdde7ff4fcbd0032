/**
 * Cross-site uploads (issue 23 item 12). Upload routes take what an HTML form can send
 * (`multipart/form-data`, `text/plain`), so a page of another site can post a file with the
 * user's cookies and no CORS preflight. The library leaves authentication to the app; this is
 * the guard docs/files.md shows for an app that authenticates with cookies, tested as written there.
 */
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { makeImage } from '../../support/images.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function uploadCsrfSpec(): void {
  // --- the example of docs/files.md, as written there ---
  /** Refuses an upload a page of another site sent with the user's cookies. */
  @Injectable()
  class SameSiteUploadGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      const { headers } = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>();
      const site = headers['sec-fetch-site'];
      // Every current browser says where a request comes from; a form of another site says 'cross-site'.
      if (site !== undefined) return site === 'same-origin' || site === 'same-site' || site === 'none';
      // Older browsers: a request with cookies must carry a header no form can send, and no script of
      // another site can either without a CORS preflight your app does not grant.
      return headers.cookie === undefined || headers['x-requested-with'] !== undefined;
    }
  }
  // --- end of the example ---

  @GeneratedResource()
  @Schema()
  class Profile {
    @Prop({ required: true }) name!: string;
    @FileProp() avatar?: FileRef;
    @FileProp() photos!: FileRef[];
  }

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Profile], files: { upload: { guards: [SameSiteUploadGuard] }, addFile: { guards: [SameSiteUploadGuard] } } });
    png = await makeImage('png');
  });

  const profile = async () => (await t.http().post('/profile').send({ name: 'A' }).expect(201)).body._id as string;
  const stored = async () => t.connection.db!.collection('profiles_files.files').countDocuments();

  describe('the same-site upload guard of docs/files.md, on every upload route (forRoot({ files }))', () => {
    it.each([
      ['PUT', 'avatar'],
      ['POST', 'photos'],
    ] as const)("refuses a cross-site form post to %s .../%s with the user's cookie: 403, nothing stored", async (method, field) => {
      const id = await profile();
      const before = await stored();
      const request = method === 'PUT' ? t.http().put(`/profile/${id}/${field}`) : t.http().post(`/profile/${id}/${field}`);
      const response = await request
        .set('Cookie', 'session=abc')
        .set('Sec-Fetch-Site', 'cross-site')
        .set('Origin', 'https://evil.example')
        .attach('file', png, { filename: 'a.png', contentType: 'image/png' });
      expectError(response, 403, 'MR_FORBIDDEN');
      expect(await stored()).toBe(before);
    });

    it('refuses a text/plain body with a cookie from an older browser (no Sec-Fetch-Site) without X-Requested-With', async () => {
      const id = await profile();
      expectError(await t.http().put(`/profile/${id}/avatar`).set('Cookie', 'session=abc').set('Content-Type', 'text/plain').send('x'), 403, 'MR_FORBIDDEN');
    });

    it.each([
      ['a same-origin page (Sec-Fetch-Site: same-origin)', { Cookie: 'session=abc', 'Sec-Fetch-Site': 'same-origin' }],
      ["an older browser's script with X-Requested-With", { Cookie: 'session=abc', 'X-Requested-With': 'XMLHttpRequest' }],
      ['a client without cookies (curl, a server, a bearer token)', { Authorization: 'Bearer token' }],
    ])('takes the upload of %s', async (_label, headers) => {
      const id = await profile();
      await t.http().put(`/profile/${id}/avatar`).set(headers).attach('file', png, { filename: 'a.png', contentType: 'image/png' }).expect(200);
    });
  });
}
