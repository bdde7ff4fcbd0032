/**
 * `Expect: 100-continue` (the new-user trial of 2026-11-29): curl asks it for a body over 1 MiB, and
 * Node answered `100 Continue` on its own, so an upload refused before its body is read (too large
 * for its field, a guard, a missing document) was still sent whole. The library answers it when the
 * body is first read (`continueOnFirstRead`): a refused upload gets its answer alone and the client
 * never sends the body; a request whose body is read gets `100 Continue`, then its answer.
 */
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Prop, Schema } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { makeImage } from '../../support/images.js';
import { requestHead, sendExpectingContinue, sendRaw } from '../../support/raw-socket.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function expectContinueSpec(): void {
  /** Refuses the uploads of a request without `X-Staff: yes`. */
  @Injectable()
  class StaffGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      return context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['x-staff'] === 'yes';
    }
  }

  @GeneratedResource()
  @Schema()
  class Badge {
    @Prop({ required: true }) name!: string;
    @FileProp({ maxSize: '64KB', accept: ['image/png'] }) photo?: FileRef;
  }

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Badge], files: { upload: { guards: [StaffGuard] } } });
    png = await makeImage('png', { seed: 3 });
  });
  afterAll(() => t?.close());

  const badge = async () => (await t.http().post('/badge').send({ name: 'B' }).expect(201)).body._id as string;
  beforeEach(() => t.connection.db!.collection('badges_files.files').deleteMany({}));
  const stored = () => t.connection.db!.collection('badges_files.files').countDocuments();
  const upload = (id: string, body: Buffer, headers: Record<string, string | number> = {}) =>
    sendExpectingContinue(
      t.app,
      requestHead('PUT', `/badge/${id}/photo`, {
        'Content-Type': 'image/png',
        'Content-Length': body.length,
        Expect: '100-continue',
        'X-Staff': 'yes',
        ...headers,
      }),
      body,
    );

  it('answers a Content-Length over the field maxSize with its 413 alone: the client never sends the body', async () => {
    const exchange = await upload(await badge(), Buffer.alloc(2 * 1024 * 1024));
    expect({ status: exchange.first.status, code: exchange.first.body?.code, sentBody: exchange.sentBody }).toEqual({
      status: 413,
      code: 'MR_PAYLOAD_TOO_LARGE',
      sentBody: 0,
    });
  });

  it("answers a guard's refusal with its 403 alone", async () => {
    const exchange = await upload(await badge(), png, { 'X-Staff': 'no' });
    expect({ status: exchange.first.status, code: exchange.first.body?.code, sentBody: exchange.sentBody }).toEqual({
      status: 403,
      code: 'MR_FORBIDDEN',
      sentBody: 0,
    });
  });

  it('answers an upload to a document that does not exist with its 404 alone', async () => {
    const exchange = await upload(new Types.ObjectId().toHexString(), png);
    expect({ status: exchange.first.status, code: exchange.first.body?.code, sentBody: exchange.sentBody }).toEqual({
      status: 404,
      code: 'MR_NOT_FOUND',
      sentBody: 0,
    });
    expect(await stored()).toBe(0);
  });

  it('answers 100 Continue to an upload it takes, then stores it', async () => {
    const exchange = await upload(await badge(), png);
    expect([exchange.first.status, exchange.final?.status, exchange.sentBody]).toEqual([100, 200, png.length]);
    expect(await stored()).toBe(1);
  });

  describe('clients that send the body without waiting', () => {
    const head = (id: string, length: number, staff = 'yes') =>
      requestHead('PUT', `/badge/${id}/photo`, { 'Content-Type': 'image/png', 'Content-Length': length, Expect: '100-continue', 'X-Staff': staff });

    it('takes the upload: its 200, after a 100 Continue when its body was read before the whole of it arrived', async () => {
      const id = await badge();
      const { answers } = await sendRaw(t.app, { pieces: [head(id, png.length), png] });
      // Sent whole before anything read it, the body needs no 100 Continue (RFC 9110 section 10.1.1): the network's timing decides.
      expect(answers.filter((answer) => answer.status !== 100).map((answer) => answer.status)).toEqual([200]);
      expect(await stored()).toBe(1);
    });

    it("refuses it with the guard's 403 and closes the connection, nothing stored", async () => {
      const id = await badge();
      const { answers, closedByServer } = await sendRaw(t.app, { pieces: [head(id, png.length, 'no'), png], untilClosed: true });
      // A 100 Continue may come first: whether the body's bytes arrive (and Node reads them) before the guard answers is the network's timing.
      const final = answers.filter((answer) => answer.status !== 100);
      expect({ statuses: final.map((answer) => answer.status), code: final[0]?.body?.code, closedByServer }).toEqual({
        statuses: [403],
        code: 'MR_FORBIDDEN',
        closedByServer: true,
      });
      expect(await stored()).toBe(0);
    });
  });

  it('answers 100 Continue to a JSON body, which is read before any check', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'Continued' }));
    const exchange = await sendExpectingContinue(
      t.app,
      requestHead('POST', '/badge', { 'Content-Type': 'application/json', 'Content-Length': body.length, Expect: '100-continue' }),
      body,
    );
    expect([exchange.first.status, exchange.final?.status, exchange.final?.body?.name]).toEqual([100, 201, 'Continued']);
  });
}
