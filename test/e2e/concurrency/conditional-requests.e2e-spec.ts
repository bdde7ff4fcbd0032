/**
 * Issue 13: ETags and conditional requests. Every single-document answer carries a strong ETag
 * that changes with every write (the relationship routes and repository writes of custom code
 * included); If-Match on a write is checked in the write's own filter (412, nothing written);
 * If-None-Match on a read answers 304; requireIfMatch answers a write without If-Match with 428.
 */
import { Controller, Headers, Param, Post } from '@nestjs/common';
import { Prop, Schema, raw } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { FileProp, GeneratedController, GeneratedResource, etagOf, type FileRef } from '../../../src/index.js';
import { Company, Entrepreneur, Team } from '../../fixtures/models.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { makeImage } from '../../support/images.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function conditionalRequestsSpec(): void {
  /** A schema without a version key: its ETag is a hash of its content. */
  @GeneratedResource()
  @Schema({ versionKey: false })
  class Note {
    @Prop({ required: true }) text!: string;
    @Prop() pinned?: boolean;
    @Prop(raw({ color: { type: String }, size: { type: Number } })) style?: { color?: string; size?: number };
    @Prop({ type: [String] }) tags?: string[];
    @Prop() at?: Date;
    @Prop({ select: false }) secret?: string;
  }

  /** Writes only with If-Match. */
  @GeneratedResource({ requireIfMatch: true })
  @Schema()
  class Ledger {
    @Prop({ required: true }) title!: string;
    @Prop() balance?: number;
  }

  /** Identified by slug: a tag names the document's `_id` too. */
  @GeneratedResource({ id: 'slug' })
  @Schema()
  class Page {
    @Prop({ required: true, unique: true }) slug!: string;
    @Prop() body?: string;
  }

  /** File routes: a single file and a gallery. */
  @GeneratedResource()
  @Schema()
  class Album {
    @Prop({ required: true }) title!: string;
    @FileProp({ maxSize: '64KB', accept: ['image/png'] }) cover?: FileRef;
    @FileProp({ maxSize: '64KB', accept: ['image/png'] }) pages!: FileRef[];
  }

  /** Custom code that writes the document through the repository. */
  @Controller()
  class CompanyController extends GeneratedController(Company) {
    /** A route of its own: If-Match is passed to the repository by hand; its second write is unconditional. */
    @Post(':company_id/grow')
    async grow(@Param('company_id') id: string, @Headers('if-match') ifMatch?: string) {
      const once = await this.repository.update(id, { employees: 1 }, { ifMatch });
      const twice = await this.repository.update(id, { employees: 2 });
      return { first: etagOf(once), second: etagOf(twice) };
    }

    /** An override that writes twice: the request's If-Match applies to the first write (super's). */
    override async patch(id: string, body: unknown) {
      await super.patch(id, body);
      return (await this.repository.update(id, { location: 'audited' }))!;
    }
  }

  const engine = useEngine();
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Entrepreneur, Company, Team, Note, Ledger, Page, Album], controllers: [CompanyController] });
    // One listening server for the concurrent requests below (supertest would open one per request).
    await t.app.listen(0, '127.0.0.1');
  });
  afterAll(() => t?.close());

  const STRONG_TAG = /^"[^"]+"$/;

  async function company(fields: Record<string, unknown> = {}): Promise<{ id: string; etag: string }> {
    const response = await t
      .http()
      .post('/company')
      .send({ niceName: 'Acme', employees: 3, ...fields })
      .expect(201);
    return { id: response.body._id, etag: response.headers.etag };
  }

  describe('ETag', () => {
    it('is answered by create, read, PUT and PATCH, strong, and the same for the same version', async () => {
      const created = await company();
      expect(created.etag).toMatch(STRONG_TAG);
      const read = await t.http().get(`/company/${created.id}`).expect(200);
      expect(read.headers.etag).toBe(created.etag);
      const put = await t.http().put(`/company/${created.id}`).send({ employees: 4 }).expect(200);
      const patch = await t.http().patch(`/company/${created.id}`).send({ employees: 5 }).expect(200);
      expect(new Set([created.etag, put.headers.etag, patch.headers.etag]).size).toBe(3);
      expect((await t.http().get(`/company/${created.id}`).expect(200)).headers.etag).toBe(patch.headers.etag);
    });

    it('changes with a write that sets a value it already has (a version, not a content hash)', async () => {
      const { id, etag } = await company();
      const again = await t.http().put(`/company/${id}`).send({ employees: 3 }).expect(200);
      expect(again.headers.etag).not.toBe(etag);
    });

    it('is not in the body, and no version key is', async () => {
      const { id } = await company();
      const body = (await t.http().get(`/company/${id}`).expect(200)).body;
      expect(Object.keys(body).sort()).toEqual(['_id', 'employees', 'niceName']);
    });

    it('changes when the relationship routes add or remove, and not when they change nothing', async () => {
      const user = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
      const team = await t.http().post('/team').send({ name: 'Crew' }).expect(201);
      const added = await t.http().post(`/team/${team.body._id}/members/${user}`).expect(200);
      expect(added.headers.etag).not.toBe(team.headers.etag);
      const again = await t.http().post(`/team/${team.body._id}/members/${user}`).expect(200);
      expect(again.headers.etag).toBe(added.headers.etag);
      const removed = await t.http().delete(`/team/${team.body._id}/members/${user}`).expect(200);
      expect(removed.headers.etag).not.toBe(added.headers.etag);
      const none = await t.http().delete(`/team/${team.body._id}/members/${user}`).expect(200);
      expect(none.headers.etag).toBe(removed.headers.etag);
    });

    it('changes with every write custom code makes through the repository', async () => {
      const { id, etag } = await company();
      const { first, second } = (await t.http().post(`/company/${id}/grow`).expect(201)).body;
      expect(new Set([etag, first, second]).size).toBe(3);
      expect((await t.http().get(`/company/${id}`).expect(200)).headers.etag).toBe(second);
    });

    it("is the referenced document's on the forward reference route", async () => {
      const user = await t.http().post('/user').send({ niceName: 'Ada' }).expect(201);
      const { id } = await company({ owner: user.body._id });
      expect((await t.http().get(`/company/${id}/owner`).expect(200)).headers.etag).toBe(user.headers.etag);
    });

    it('is not answered by searches or a delete (Express adds its own weak one to every body)', async () => {
      const { id } = await company();
      const weakOrNone = (etag: string | undefined) => expect(etag ?? 'W/').toMatch(/^W\//);
      weakOrNone((await t.http().get('/companies').expect(200)).headers.etag);
      weakOrNone((await t.http().delete(`/company/${id}`).expect(200)).headers.etag);
    });
  });

  describe('If-None-Match on a read', () => {
    it('answers 304 without a body while the tag is current, 200 once the document changed', async () => {
      const { id, etag } = await company();
      const cached = await t.http().get(`/company/${id}`).set('If-None-Match', etag).expect(304);
      expect(cached.text ?? '').toBe('');
      expect(cached.headers.etag).toBe(etag);
      await t.http().put(`/company/${id}`).send({ employees: 9 }).expect(200);
      const fresh = await t.http().get(`/company/${id}`).set('If-None-Match', etag).expect(200);
      expect(fresh.body.employees).toBe(9);
    });

    it('compares weakly, takes a list and *, and ignores what is not a tag', async () => {
      const { id, etag } = await company();
      await t.http().get(`/company/${id}`).set('If-None-Match', `W/${etag}`).expect(304);
      await t.http().get(`/company/${id}`).set('If-None-Match', `"other", ${etag}`).expect(304);
      await t.http().get(`/company/${id}`).set('If-None-Match', '*').expect(304);
      await t.http().get(`/company/${id}`).set('If-None-Match', 'garbage').expect(200);
    });

    it('is a 404 for a document that does not exist, whatever the tag', async () => {
      expectError(await t.http().get(`/company/${MISSING_ID}`).set('If-None-Match', '*'), 404, 'MR_NOT_FOUND');
    });
  });

  describe('If-Match on a write', () => {
    it('writes when the tag is current, and answers the new one', async () => {
      const { id, etag } = await company();
      const put = await t.http().put(`/company/${id}`).set('If-Match', etag).send({ employees: 4 }).expect(200);
      expect(put.body.employees).toBe(4);
      expect(put.headers.etag).not.toBe(etag);
      await t.http().patch(`/company/${id}`).set('If-Match', put.headers.etag).send({ employees: 5 }).expect(200);
    });

    it('refuses a stale tag with 412, the current ETag, and nothing written (PUT, PATCH, DELETE)', async () => {
      const { id, etag } = await company();
      const current = (await t.http().put(`/company/${id}`).send({ employees: 4 }).expect(200)).headers.etag;
      for (const request of [
        () => t.http().put(`/company/${id}`).set('If-Match', etag).send({ employees: 100 }),
        () => t.http().patch(`/company/${id}`).set('If-Match', etag).send({ location: 'Mars' }),
        () => t.http().delete(`/company/${id}`).set('If-Match', etag),
      ]) {
        const response = await request();
        expectError(response, 412, 'MR_PRECONDITION_FAILED');
        expect(response.headers.etag).toBe(current);
      }
      const stored = await t.http().get(`/company/${id}`).expect(200);
      expect(stored.body).toEqual({ _id: id, niceName: 'Acme', employees: 4 });
      expect(stored.headers.etag).toBe(current);
    });

    it('deletes with the current tag', async () => {
      const { id, etag } = await company();
      await t.http().delete(`/company/${id}`).set('If-Match', etag).expect(200);
      await t.http().get(`/company/${id}`).expect(404);
    });

    it('takes a list of tags (one current is enough) and *; a weak tag never matches', async () => {
      const { id, etag } = await company();
      const next = (await t.http().put(`/company/${id}`).set('If-Match', `"nope", ${etag}`).send({ employees: 4 }).expect(200)).headers.etag;
      await t.http().put(`/company/${id}`).set('If-Match', '*').send({ employees: 5 }).expect(200);
      const latest = (await t.http().get(`/company/${id}`)).headers.etag;
      expect(latest).not.toBe(next);
      expectError(await t.http().put(`/company/${id}`).set('If-Match', `W/${latest}`).send({ employees: 6 }), 412, 'MR_PRECONDITION_FAILED');
    });

    it('refuses a tag of another document, and a malformed one', async () => {
      const a = await company();
      const b = await company();
      expectError(await t.http().put(`/company/${a.id}`).set('If-Match', b.etag).send({ employees: 8 }), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().put(`/company/${a.id}`).set('If-Match', 'not-a-tag').send({ employees: 8 }), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/company/${a.id}`)).body.employees).toBe(3);
    });

    it('is a 404, not a 412, for a document that does not exist', async () => {
      const { etag } = await company();
      expectError(await t.http().put(`/company/${MISSING_ID}`).set('If-Match', etag).send({ employees: 1 }), 404, 'MR_NOT_FOUND');
      expectError(await t.http().delete(`/company/${MISSING_ID}`).set('If-Match', etag), 404, 'MR_NOT_FOUND');
    });

    it('is checked on an empty change too (nothing to write, still a stale tag)', async () => {
      const { id, etag } = await company();
      await t.http().put(`/company/${id}`).send({ employees: 4 }).expect(200);
      expectError(await t.http().put(`/company/${id}`).set('If-Match', etag).send({}), 412, 'MR_PRECONDITION_FAILED');
    });

    it('guards the relationship routes, and an add that changes nothing still checks the tag', async () => {
      const user = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
      const team = await t.http().post('/team').send({ name: 'Crew' }).expect(201);
      const id = team.body._id;
      const added = await t.http().post(`/team/${id}/members/${user}`).set('If-Match', team.headers.etag).expect(200);
      expectError(await t.http().post(`/team/${id}/members/${user}`).set('If-Match', team.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().delete(`/team/${id}/members/${user}`).set('If-Match', team.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      await t.http().post(`/team/${id}/members/${user}`).set('If-Match', added.headers.etag).expect(200);
      await t.http().delete(`/team/${id}/members/${user}`).set('If-Match', added.headers.etag).expect(200);
      expect((await t.http().get(`/team/${id}`)).body.members).toEqual([]);
    });

    it('applies to the first write of an override of a generated route: its later writes land', async () => {
      const { id, etag } = await company();
      const patched = await t.http().patch(`/company/${id}`).set('If-Match', etag).send({ employees: 7 }).expect(200);
      expect(patched.body).toMatchObject({ employees: 7, location: 'audited' });
    });

    it('stops an override at its first write when the tag is stale: nothing written', async () => {
      const { id, etag } = await company();
      await t.http().put(`/company/${id}`).send({ employees: 4 }).expect(200);
      expectError(await t.http().patch(`/company/${id}`).set('If-Match', etag).send({ employees: 7 }), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/company/${id}`)).body).toEqual({ _id: id, niceName: 'Acme', employees: 4 });
    });

    it('is passed by hand to the repository in a route of your own (WriteOptions.ifMatch)', async () => {
      const { id, etag } = await company();
      await t.http().put(`/company/${id}`).send({ employees: 4 }).expect(200);
      expectError(await t.http().post(`/company/${id}/grow`).set('If-Match', etag), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/company/${id}`)).body.employees).toBe(4);
      const current = (await t.http().get(`/company/${id}`)).headers.etag;
      await t.http().post(`/company/${id}/grow`).set('If-Match', current).expect(201);
      expect((await t.http().get(`/company/${id}`)).body.employees).toBe(2);
    });

    it('names the _id too where the id field is a slug: a tag of a deleted page does not match its successor', async () => {
      const first = await t.http().post('/page').send({ slug: 'home', body: 'v1' }).expect(201);
      await t.http().delete('/page/home').expect(200);
      await t.http().post('/page').send({ slug: 'home', body: 'v2' }).expect(201);
      expectError(await t.http().put('/page/home').set('If-Match', first.headers.etag).send({ body: 'lost' }), 412, 'MR_PRECONDITION_FAILED');
      const current = await t.http().get('/page/home').expect(200);
      expect(current.body.body).toBe('v2');
      await t.http().put('/page/home').set('If-Match', current.headers.etag).send({ body: 'v3' }).expect(200);
    });
  });

  describe('If-None-Match on a write (RFC 9110: a 412 when the condition fails)', () => {
    it('* refuses PUT, PATCH and DELETE of an existing document: 412, the current ETag, nothing written', async () => {
      const { id, etag } = await company();
      for (const request of [
        () => t.http().put(`/company/${id}`).set('If-None-Match', '*').send({ employees: 100 }),
        () => t.http().patch(`/company/${id}`).set('If-None-Match', '*').send({ location: 'Mars' }),
        () => t.http().patch(`/company/${id}`).set('If-None-Match', '*').send({}),
        () => t.http().delete(`/company/${id}`).set('If-None-Match', '*'),
      ]) {
        const response = await request();
        expectError(response, 412, 'MR_PRECONDITION_FAILED');
        expect(response.headers.etag).toBe(etag);
      }
      const stored = await t.http().get(`/company/${id}`).expect(200);
      expect(stored.body).toEqual({ _id: id, niceName: 'Acme', employees: 3 });
      expect(stored.headers.etag).toBe(etag);
    });

    it('refuses the current tag, compared weakly and in a list; a stale tag writes', async () => {
      const { id, etag } = await company();
      for (const header of [etag, `W/${etag}`, `"nope", ${etag}`]) {
        expectError(await t.http().put(`/company/${id}`).set('If-None-Match', header).send({ employees: 9 }), 412, 'MR_PRECONDITION_FAILED');
        expectError(await t.http().delete(`/company/${id}`).set('If-None-Match', header), 412, 'MR_PRECONDITION_FAILED');
      }
      expect((await t.http().get(`/company/${id}`)).body.employees).toBe(3);
      const next = await t.http().patch(`/company/${id}`).set('If-None-Match', '"nope", "other-1"').send({ employees: 4 }).expect(200);
      await t.http().put(`/company/${id}`).set('If-None-Match', etag).send({ employees: 5 }).expect(200);
      expectError(
        await t.http().put(`/company/${id}`).set('If-None-Match', next.headers.etag).set('If-Match', etag).send({ employees: 6 }),
        412,
        'MR_PRECONDITION_FAILED',
      );
      await t.http().delete(`/company/${id}`).set('If-None-Match', next.headers.etag).expect(200);
    });

    it('needs both conditions to hold when both are sent', async () => {
      const { id, etag } = await company();
      expectError(await t.http().put(`/company/${id}`).set('If-Match', etag).set('If-None-Match', etag).send({ employees: 9 }), 412, 'MR_PRECONDITION_FAILED');
      expectError(
        await t.http().put(`/company/${id}`).set('If-Match', '"stale-1"').set('If-None-Match', '"other-1"').send({ employees: 9 }),
        412,
        'MR_PRECONDITION_FAILED',
      );
      await t.http().put(`/company/${id}`).set('If-Match', etag).set('If-None-Match', '"other-1"').send({ employees: 9 }).expect(200);
    });

    it('is a 404, not a 412, for a document that does not exist', async () => {
      expectError(await t.http().put(`/company/${MISSING_ID}`).set('If-None-Match', '*').send({ employees: 1 }), 404, 'MR_NOT_FOUND');
      expectError(await t.http().delete(`/company/${MISSING_ID}`).set('If-None-Match', '*'), 404, 'MR_NOT_FOUND');
    });

    it('names the _id too where the id field is a slug', async () => {
      const first = await t.http().post('/page').send({ slug: 'about', body: 'v1' }).expect(201);
      expectError(await t.http().put('/page/about').set('If-None-Match', first.headers.etag).send({ body: 'no' }), 412, 'MR_PRECONDITION_FAILED');
      await t.http().delete('/page/about').expect(200);
      await t.http().post('/page').send({ slug: 'about', body: 'v2' }).expect(201);
      // The same version of another document: not the tag of this one.
      await t.http().put('/page/about').set('If-None-Match', first.headers.etag).send({ body: 'v3' }).expect(200);
    });

    it('is checked against the content tag of a schema without a version key', async () => {
      const created = await t.http().post('/note').send({ text: 'hello' }).expect(201);
      const id = created.body._id;
      expectError(await t.http().put(`/note/${id}`).set('If-None-Match', created.headers.etag).send({ text: 'no' }), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().put(`/note/${id}`).set('If-None-Match', '*').send({ text: 'no' }), 412, 'MR_PRECONDITION_FAILED');
      const put = await t.http().put(`/note/${id}`).set('If-None-Match', '"another"').send({ pinned: true }).expect(200);
      expectError(await t.http().delete(`/note/${id}`).set('If-None-Match', put.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      await t.http().delete(`/note/${id}`).set('If-None-Match', created.headers.etag).expect(200);
    });

    it('guards the relationship routes of an array of references', async () => {
      const user = (await t.http().post('/user').send({ niceName: 'Ada' }).expect(201)).body._id;
      const team = await t.http().post('/team').send({ name: 'Crew' }).expect(201);
      const id = team.body._id;
      expectError(await t.http().post(`/team/${id}/members/${user}`).set('If-None-Match', '*'), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().post(`/team/${id}/members/${user}`).set('If-None-Match', team.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/team/${id}`)).body.members).toEqual([]);
      const added = await t.http().post(`/team/${id}/members/${user}`).set('If-None-Match', '"stale-1"').expect(200);
      // An add that would change nothing still checks the condition.
      expectError(await t.http().post(`/team/${id}/members/${user}`).set('If-None-Match', added.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().delete(`/team/${id}/members/${user}`).set('If-None-Match', '*'), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/team/${id}`)).body.members).toEqual([user]);
      await t.http().delete(`/team/${id}/members/${user}`).set('If-None-Match', team.headers.etag).expect(200);
      expect((await t.http().get(`/team/${id}`)).body.members).toEqual([]);
    });

    it('guards the file routes: upload, add to a gallery and delete, refused before the file is read', async () => {
      const png = await makeImage('png');
      const created = await t.http().post('/album').send({ title: 'Trip' }).expect(201);
      const id = created.body._id;
      for (const header of ['*', created.headers.etag]) {
        expectError(
          await t.http().put(`/album/${id}/cover`).set('If-None-Match', header).set('Content-Type', 'image/png').send(png),
          412,
          'MR_PRECONDITION_FAILED',
        );
        expectError(
          await t.http().post(`/album/${id}/pages`).set('If-None-Match', header).set('Content-Type', 'image/png').send(png),
          412,
          'MR_PRECONDITION_FAILED',
        );
      }
      const unchanged = await t.http().get(`/album/${id}`).expect(200);
      expect(unchanged.body).toEqual({ _id: id, title: 'Trip' });
      expect(unchanged.headers.etag).toBe(created.headers.etag);
      expect(await t.connection.collection('albums_files.files').countDocuments()).toBe(0);
      const uploaded = await t.http().put(`/album/${id}/cover`).set('If-None-Match', '"stale-1"').set('Content-Type', 'image/png').send(png).expect(200);
      const added = await t.http().post(`/album/${id}/pages`).set('If-None-Match', created.headers.etag).set('Content-Type', 'image/png').send(png).expect(201);
      const page = added.body.pages[0]._id;
      expectError(await t.http().delete(`/album/${id}/cover`).set('If-None-Match', '*'), 412, 'MR_PRECONDITION_FAILED');
      expectError(await t.http().delete(`/album/${id}/pages/${page}`).set('If-None-Match', added.headers.etag), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/album/${id}`)).body).toMatchObject({ cover: { _id: uploaded.body.cover._id }, pages: [{ _id: page }] });
      await t.http().delete(`/album/${id}/pages/${page}`).set('If-None-Match', uploaded.headers.etag).expect(200);
      await t.http().delete(`/album/${id}/cover`).expect(200);
    });

    it('is still ignored by a create, which makes a new document', async () => {
      await t.http().post('/company').set('If-None-Match', '*').send({ niceName: 'New' }).expect(201);
    });
  });

  describe('a schema without a version key (a content hash)', () => {
    it('answers a tag that changes with the content, and checks If-Match against it', async () => {
      const created = await t.http().post('/note').send({ text: 'hello' }).expect(201);
      const id = created.body._id;
      expect(created.headers.etag).toMatch(STRONG_TAG);
      const read = await t.http().get(`/note/${id}`).expect(200);
      expect(read.headers.etag).toBe(created.headers.etag);
      await t.http().get(`/note/${id}`).set('If-None-Match', read.headers.etag).expect(304);
      const put = await t.http().put(`/note/${id}`).set('If-Match', read.headers.etag).send({ pinned: true }).expect(200);
      expect(put.headers.etag).not.toBe(read.headers.etag);
      expectError(await t.http().put(`/note/${id}`).set('If-Match', read.headers.etag).send({ text: 'stale' }), 412, 'MR_PRECONDITION_FAILED');
      expect((await t.http().get(`/note/${id}`)).body).toMatchObject({ text: 'hello', pinned: true });
      await t.http().delete(`/note/${id}`).set('If-Match', put.headers.etag).expect(200);
    });

    it('compares nested objects, arrays, dates and a hidden field the client never sees', async () => {
      const created = await t
        .http()
        .post('/note')
        .send({ text: 'rich', style: { color: 'red', size: 2 }, tags: ['a', 'b'], at: '2026-01-02T03:04:05.000Z' })
        .expect(201);
      const id = created.body._id;
      // A field the routes hide, written by other code: the tag (of what a client sees) does not change.
      await t.connection.collection('notes').updateOne({ _id: new Types.ObjectId(id) }, { $set: { secret: 's' } });
      const read = await t.http().get(`/note/${id}`).expect(200);
      expect(read.headers.etag).toBe(created.headers.etag);
      const put = await t
        .http()
        .put(`/note/${id}`)
        .set('If-Match', read.headers.etag)
        .send({ style: { size: 3 } })
        .expect(200);
      expect(put.body.style).toEqual({ color: 'red', size: 3 });
      expectError(
        await t
          .http()
          .put(`/note/${id}`)
          .set('If-Match', read.headers.etag)
          .send({ tags: ['stale'] }),
        412,
        'MR_PRECONDITION_FAILED',
      );
      expect((await t.connection.collection('notes').findOne({ _id: new Types.ObjectId(id) }))?.secret).toBe('s');
    });
  });

  describe('a document written without a version key (by other code)', () => {
    it('has version 0, and If-Match with that tag writes', async () => {
      const { insertedId } = await t.connection.collection('companies').insertOne({ niceName: 'Legacy', employees: 1 });
      const read = await t.http().get(`/company/${insertedId}`).expect(200);
      expect(read.headers.etag).toBe(`"${insertedId}-0"`);
      const put = await t.http().put(`/company/${insertedId}`).set('If-Match', read.headers.etag).send({ employees: 2 }).expect(200);
      expect(put.headers.etag).toBe(`"${insertedId}-1"`);
      expectError(await t.http().put(`/company/${insertedId}`).set('If-Match', read.headers.etag).send({ employees: 3 }), 412, 'MR_PRECONDITION_FAILED');
    });
  });

  describe('requireIfMatch', () => {
    it('answers a write without If-Match with 428 and writes nothing; with it, writes', async () => {
      const created = await t.http().post('/ledger').send({ title: 'Cash', balance: 10 }).expect(201);
      const id = created.body._id;
      expectError(await t.http().put(`/ledger/${id}`).send({ balance: 0 }), 428, 'MR_PRECONDITION_REQUIRED');
      expectError(await t.http().patch(`/ledger/${id}`).send({ balance: 0 }), 428, 'MR_PRECONDITION_REQUIRED');
      expectError(await t.http().delete(`/ledger/${id}`), 428, 'MR_PRECONDITION_REQUIRED');
      expect((await t.http().get(`/ledger/${id}`)).body.balance).toBe(10);
      await t.http().put(`/ledger/${id}`).set('If-Match', created.headers.etag).send({ balance: 0 }).expect(200);
    });

    it('leaves the other resources alone', async () => {
      const { id } = await company();
      await t.http().put(`/company/${id}`).send({ employees: 1 }).expect(200);
    });
  });

  describe('lost updates: 20 clients read a counter, add one, and write it back, all at once', () => {
    const CLIENTS = 20;

    it('without If-Match, 19 of the 20 increments are lost', async () => {
      const { id } = await company({ employees: 0 });
      const reads = await Promise.all(Array.from({ length: CLIENTS }, () => t.http().get(`/company/${id}`).expect(200)));
      await Promise.all(
        reads.map((read) =>
          t
            .http()
            .put(`/company/${id}`)
            .send({ employees: read.body.employees + 1 })
            .expect(200),
        ),
      );
      expect((await t.http().get(`/company/${id}`)).body.employees).toBe(1);
    });

    it('with If-Match and a retry on 412, every increment lands', async () => {
      const { id } = await company({ employees: 0 });
      let refused = 0;
      // Every client reads before any writes: the first round is the worst case, one wins and 19 retry.
      let pending = await Promise.all(Array.from({ length: CLIENTS }, () => t.http().get(`/company/${id}`).expect(200)));
      while (pending.length) {
        const writes = await Promise.all(
          pending.map((read) =>
            t
              .http()
              .put(`/company/${id}`)
              .set('If-Match', read.headers.etag)
              .send({ employees: read.body.employees + 1 }),
          ),
        );
        for (const write of writes) if (write.status !== 200) expectError(write, 412, 'MR_PRECONDITION_FAILED');
        refused += writes.filter((write) => write.status === 412).length;
        pending = await Promise.all(writes.filter((write) => write.status === 412).map(() => t.http().get(`/company/${id}`).expect(200)));
      }
      expect((await t.http().get(`/company/${id}`)).body.employees).toBe(CLIENTS);
      expect(refused).toBeGreaterThanOrEqual(CLIENTS - 1);
    });
  });
}
