import { Header, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Connection } from 'mongoose';
import type request from 'supertest';
import { ModelRoutesModule } from '../../../src/index.js';
import { API_KEY, Label, Memo, Note, Writer } from '../../fixtures/extend-models.js';
import { bootTestApp, createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError, expectNoRoute } from '../../support/expect-error.js';
import { MISSING_ID } from '../../support/ids.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function routeOptionsSpec(): void {
  /** Per-route options: `@GeneratedResource({ routes, references })` and `forRoot({ routes, references })`. */

  const engine = useEngine();

  async function clear(connection: Connection): Promise<void> {
    await Promise.all(Object.values(connection.models).map((model) => model.deleteMany({})));
  }

  describe('route options on the resource', () => {
    let t: TestApp;
    let writer: { _id: string; name: string };
    let note: { _id: string; title: string };

    beforeAll(async () => {
      t = await createTestApp(engine, { resources: [Writer, Note] });
    });
    afterAll(() => t?.close());
    beforeEach(async () => {
      await clear(t.connection);
      writer = (await t.http().post('/writer').send({ name: 'Ursula' }).expect(201)).body;
      const doc = await t.connection.model('Note').create({ title: 'first', writer: writer._id, editor: writer._id, reviewer: writer._id });
      note = { _id: String(doc._id), title: 'first' };
    });

    describe('false: the route is not mapped', () => {
      it('DELETE /note/:note_id answers 405 (the path serves other methods, listed in Allow) and deletes nothing', async () => {
        const response = await t.http().delete(`/note/${note._id}`);
        expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
        expect(response.headers.allow).not.toContain('DELETE');
        expect(await t.connection.model('Note').countDocuments()).toBe(1);
      });

      it('GET /note/:note_id still works', async () => {
        const response = await t.http().get(`/note/${note._id}`).expect(200);
        expect(response.body).toEqual({ _id: note._id, title: 'first', writer: writer._id, editor: writer._id, reviewer: writer._id });
      });

      it('{ enabled: false } removes the route too, guards or not (PUT and PATCH /writer/:writer_id)', async () => {
        const response = await t.http().put(`/writer/${writer._id}`).send({ name: 'Changed' });
        expectError(response, 405, 'MR_METHOD_NOT_ALLOWED');
        expect(response.headers.allow).toBe('DELETE, GET, HEAD');
        expectError(await t.http().patch(`/writer/${writer._id}`).send({ name: 'Changed' }), 405, 'MR_METHOD_NOT_ALLOWED');
        expect((await t.http().get(`/writer/${writer._id}`).expect(200)).body.name).toBe('Ursula');
      });
    });

    describe('guards', () => {
      it('a guard that refuses answers 403 MR_FORBIDDEN in the error shape, and changes nothing (PUT /note)', async () => {
        const response = await t.http().put(`/note/${note._id}`).send({ title: 'changed' });
        expectError(response, 403, 'MR_FORBIDDEN');
        expect((await t.http().get(`/note/${note._id}`).expect(200)).body.title).toBe('first');
      });

      it('ApiKeyGuard refuses POST /note without the x-api-key header', async () => {
        expectError(await t.http().post('/note').send({ title: 'no key' }), 403, 'MR_FORBIDDEN');
        expect(await t.connection.model('Note').countDocuments()).toBe(1);
      });

      it('ApiKeyGuard refuses POST /note with a wrong key', async () => {
        expectError(await t.http().post('/note').set('x-api-key', 'wrong').send({ title: 'bad key' }), 403, 'MR_FORBIDDEN');
        expect(await t.connection.model('Note').countDocuments()).toBe(1);
      });

      it('ApiKeyGuard admits POST /note with the key: 201, Location, and the pipe of the route ran', async () => {
        const response = await t.http().post('/note').set('x-api-key', API_KEY).send({ title: 'hello' }).expect(201);
        expect(response.body).toEqual({ _id: expect.any(String), title: 'HELLO' });
        expect(response.headers.location).toBe(`/note/${response.body._id}`);
        expect((await t.connection.model('Note').findById(response.body._id).lean<{ title: string }>())!.title).toBe('HELLO');
      });

      it('the route keeps its validation behind the guard: an unknown field is a 400 MR_INVALID_BODY', async () => {
        const response = await t.http().post('/note').set('x-api-key', API_KEY).send({ title: 'x', isAdmin: true });
        expectError(response, 400, 'MR_INVALID_BODY');
        expect(await t.connection.model('Note').countDocuments()).toBe(1);
      });

      it('a guard given as an instance works (DELETE /writer/:writer_id: 403 without the key, 200 with it)', async () => {
        expectError(await t.http().delete(`/writer/${writer._id}`), 403, 'MR_FORBIDDEN');
        expect(await t.connection.model('Writer').countDocuments()).toBe(1);
        const response = await t.http().delete(`/writer/${writer._id}`).set('x-api-key', API_KEY).expect(200);
        expect(response.body).toEqual({ _id: writer._id, name: 'Ursula' });
        expect(await t.connection.model('Writer').countDocuments()).toBe(0);
      });

      it('a guard only guards its own route: GET /writer/:writer_id needs no key', async () => {
        await t.http().get(`/writer/${writer._id}`).expect(200);
      });
    });

    describe('interceptors and decorators', () => {
      it('the interceptor of `search` adds its header to GET /notes', async () => {
        const response = await t.http().get('/notes').expect(200);
        expect(response.headers['x-stamp']).toBe('stamped');
        expect(response.body.status.match_count).toBe(1);
      });

      it('the interceptor of `searchPost` adds its header to POST /notes', async () => {
        const response = await t
          .http()
          .post('/notes')
          .send({ query: { title: 'first' } })
          .expect(200);
        expect(response.headers['x-stamp']).toBe('stamped');
        expect(response.body.result).toHaveLength(1);
      });

      it("decorators: [Header('X-Test', '1')] on `findOne` sets the header on GET /note/:note_id", async () => {
        const response = await t.http().get(`/note/${note._id}`).expect(200);
        expect(response.headers['x-test']).toBe('1');
      });

      it('options of one route do not leak to the others of the resource', async () => {
        const one = await t.http().get(`/note/${note._id}`).expect(200);
        expect(one.headers['x-stamp']).toBeUndefined();
        const list = await t.http().get('/notes').expect(200);
        expect(list.headers['x-test']).toBeUndefined();
      });

      it('options of one resource do not leak to another: GET /writers has neither header', async () => {
        const response = await t.http().get('/writers').expect(200);
        expect(response.headers['x-stamp']).toBeUndefined();
        expect(response.headers['x-test']).toBeUndefined();
      });
    });

    describe('reference routes, per field and per direction', () => {
      it('writer: { reverse: false, reversePost: false } keeps the find route', async () => {
        const response = await t.http().get(`/note/${note._id}/writer`).expect(200);
        expect(response.body).toEqual({ _id: writer._id, name: 'Ursula' });
      });

      it.each(['get', 'post'] as const)('writer: { reverse: false, reversePost: false } removes %s /writer/:writer_id/notes/writer', async (method) => {
        expectNoRoute(await t.http()[method](`/writer/${writer._id}/notes/writer`));
      });

      it('editor: { find: false } removes GET /note/:note_id/editor', async () => {
        expectNoRoute(await t.http().get(`/note/${note._id}/editor`));
      });

      it.each(['get', 'post'] as const)('editor: { find: false } keeps %s /writer/:writer_id/notes/editor', async (method) => {
        const response = await t.http()[method](`/writer/${writer._id}/notes/editor`).expect(200);
        expect(response.body.result.map((doc: { _id: string }) => doc._id)).toEqual([note._id]);
      });

      it('reviewer: { find: { guards: [DenyGuard] } } answers 403 MR_FORBIDDEN', async () => {
        expectError(await t.http().get(`/note/${note._id}/reviewer`), 403, 'MR_FORBIDDEN');
      });

      it.each(['get', 'post'] as const)(
        'reviewer: { reverse / reversePost: { decorators } } sets X-Reverse on %s /writer/:writer_id/notes/reviewer',
        async (method) => {
          const response = await t.http()[method](`/writer/${writer._id}/notes/reviewer`).expect(200);
          expect(response.headers['x-reverse']).toBe('1');
          expect(response.body.status.match_count).toBe(1);
        },
      );
    });
  });

  /** Blocks any request with `x-block: 1`, as an application-wide guard (APP_GUARD). */
  @Injectable()
  class BlockHeaderGuard implements CanActivate {
    static calls = 0;
    canActivate(context: ExecutionContext): boolean {
      BlockHeaderGuard.calls++;
      return context.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers['x-block'] !== '1';
    }
  }

  describe('forRoot({ routes, references }) defaults, and an APP_GUARD', () => {
    let http: () => ReturnType<typeof request>;
    let connection: Connection;
    let label: { _id: string };
    let memo: { _id: string };

    beforeAll(async () => {
      ({ http, connection } = await bootTestApp(engine, {
        modelRoutes: ModelRoutesModule.forRoot({
          resources: [Label, Memo],
          routes: {
            delete: false,
            search: { decorators: [Header('X-Default', '1')] },
            searchPost: { decorators: [Header('X-Default', '1')] },
            findOne: { decorators: [Header('X-Default-Get', '1')] },
          },
          references: {
            reverse: false,
            reversePost: false,
            find: { decorators: [Header('X-Forward', '1')] },
          },
        }),
        providers: [{ provide: APP_GUARD, useClass: BlockHeaderGuard }],
      }));
    });
    beforeEach(async () => {
      await clear(connection);
      label = (await http().post('/label').send({ name: 'urgent' }).expect(201)).body;
      memo = (await http().post('/memo').send({ text: 'call back', label: label._id, approver: label._id }).expect(201)).body;
    });

    describe('a resource without options gets the defaults (Label)', () => {
      it('delete: false removes DELETE /label/:label_id', async () => {
        expectError(await http().delete(`/label/${label._id}`), 405, 'MR_METHOD_NOT_ALLOWED');
        expect(await connection.model('Label').countDocuments()).toBe(1);
      });

      it.each(['get', 'post'] as const)('the search decorators apply to %s /labels', async (method) => {
        const response = await http()[method]('/labels').expect(200);
        expect(response.headers['x-default']).toBe('1');
      });

      it('the findOne decorators apply to GET /label/:label_id', async () => {
        const response = await http().get(`/label/${label._id}`).expect(200);
        expect(response.headers['x-default-get']).toBe('1');
        expect(response.headers['x-default']).toBeUndefined();
      });
    });

    describe('a resource overrides them key by key (Memo)', () => {
      it('delete: { enabled: true } brings DELETE /memo/:memo_id back', async () => {
        const response = await http().delete(`/memo/${memo._id}`).expect(200);
        expect(response.body._id).toBe(memo._id);
        expect(await connection.model('Memo').countDocuments()).toBe(0);
      });

      it("its own search options replace forRoot's entirely: X-Stamp, no X-Default", async () => {
        for (const method of ['get', 'post'] as const) {
          const response = await http()[method]('/memos').expect(200);
          expect(response.headers['x-stamp']).toBe('stamped');
          expect(response.headers['x-default']).toBeUndefined();
        }
      });

      it("findOne: true keeps forRoot's options for GET /memo/:memo_id", async () => {
        const response = await http().get(`/memo/${memo._id}`).expect(200);
        expect(response.headers['x-default-get']).toBe('1');
      });
    });

    describe('reference defaults', () => {
      it('find defaults apply to every field: X-Forward on GET /memo/:memo_id/label and /approver', async () => {
        for (const field of ['label', 'approver']) {
          const response = await http().get(`/memo/${memo._id}/${field}`).expect(200);
          expect(response.headers['x-forward']).toBe('1');
          expect(response.body).toEqual({ _id: label._id, name: 'urgent' });
        }
      });

      it.each(['get', 'post'] as const)('reverse and reversePost: false remove %s /label/:label_id/memos/approver (no own option)', async (method) => {
        expectNoRoute(await http()[method](`/label/${label._id}/memos/approver`));
      });

      it.each(['get', 'post'] as const)("the field's own reverse option brings back %s /label/:label_id/memos/label", async (method) => {
        const response = await http()[method](`/label/${label._id}/memos/label`).expect(200);
        expect(response.headers['x-reverse']).toBe('1');
        expect(response.body.result.map((doc: { _id: string }) => doc._id)).toEqual([memo._id]);
      });
    });

    describe('a global guard (APP_GUARD) runs on the generated routes', () => {
      it.each([
        ['get', '/label/:label'],
        ['get', '/labels'],
        ['post', '/labels'],
        ['post', '/label'],
        ['delete', '/memo/:memo'],
        ['get', '/memo/:memo/label'],
        ['get', '/label/:label/memos/label'],
      ] as const)('%s %s with x-block: 1 is a 403 MR_FORBIDDEN', async (method, template) => {
        const path = template.replace(':label', label._id).replace(':memo', memo._id);
        const response = await http()[method](path).set('x-block', '1').send({ name: 'blocked' });
        expectError(response, 403, 'MR_FORBIDDEN');
        expect(await connection.model('Label').countDocuments()).toBe(1);
        expect(await connection.model('Memo').countDocuments()).toBe(1);
      });

      it('and admits the others', async () => {
        const before = BlockHeaderGuard.calls;
        await http().get(`/label/${label._id}`).expect(200);
        await http().get(`/label/${MISSING_ID}`).expect(404);
        expect(BlockHeaderGuard.calls).toBe(before + 2);
      });
    });
  });
}
