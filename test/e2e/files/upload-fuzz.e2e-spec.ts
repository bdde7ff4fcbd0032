/**
 * Uploads under attack (issue 23): malformed, truncated, reordered, late and abandoned multipart
 * bodies, sent over raw sockets. Each must get a 4xx in the one error shape (or, when the client
 * left, no answer), store nothing, and leave the process answering the next request. The named
 * tests are counterexamples; the last block sends seeded random mutations of a valid body.
 */
import type { IncomingMessage, Server } from 'node:http';
import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Schema, Prop } from '@nestjs/mongoose';
import { FileProp, FileRef, GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { MISSING_ID } from '../../support/ids.js';
import { makeImage } from '../../support/images.js';
import { chunked, requestHead, sendRaw, type RawAnswer } from '../../support/raw-socket.js';
import { seededRandom } from '../../support/seeded-random.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function uploadFuzzSpec(): void {
  @Injectable()
  class KeyGuard implements CanActivate {
    canActivate(context: ExecutionContext): boolean {
      return context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['x-key'] === 'open';
    }
  }

  @GeneratedResource({ files: { locked: { addFile: { guards: [KeyGuard] } } } })
  @Schema()
  class Album {
    @Prop({ required: true }) title!: string;
    @FileProp({ maxSize: '64KB' }) cover?: FileRef;
    @FileProp({ maxSize: '64KB' }) photos!: FileRef[];
    @FileProp() locked!: FileRef[];
    /** A short body timeout, so that a test of it waits a fraction of a second. */
    @FileProp({ bodyTimeout: 300 }) slow?: FileRef;
  }

  const engine = useEngine();
  let t: TestApp;
  let png: Buffer;

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Album] });
    png = await makeImage('png', { width: 8, height: 8 });
  });

  const album = async () => (await t.http().post('/album').send({ title: 'A' }).expect(201)).body._id as string;
  const stored = async () => t.connection.db!.collection('albums_files.files').countDocuments();
  beforeEach(async () => {
    await t.connection.db!.collection('albums_files.files').deleteMany({});
    await t.connection.db!.collection('albums_files.chunks').deleteMany({});
  });

  /** The app still answers (the process is alive and the route works): a valid upload is stored. */
  async function expectAlive(id: string): Promise<void> {
    await t.http().post(`/album/${id}/photos`).attach('file', png, { filename: 'ok.png', contentType: 'image/png' }).expect(201);
  }

  function expectInvalidFile(answer: RawAnswer | undefined): void {
    expect(answer?.status).toBe(400);
    expect(answer?.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'MR_INVALID_FILE',
      message: expect.any(String),
      details: [{ path: 'file', message: expect.any(String) }],
    });
  }

  const part = (boundary: string, body: string | Buffer, filename = 'a.png', type = 'image/png') =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`),
      Buffer.from(body),
      Buffer.from('\r\n'),
    ]);

  const closing = (boundary: string) => Buffer.from(`--${boundary}--\r\n`);

  describe('counterexamples', () => {
    it('a multipart body that ends without its closing boundary, sent in one piece: 400 MR_INVALID_FILE, and the process lives', async () => {
      const id = await album();
      const body = part('B', 'x');
      const head = requestHead('POST', `/album/${id}/photos`, { 'Content-Type': 'multipart/form-data; boundary=B', 'Content-Length': body.length });
      const { answers } = await sendRaw(t.app, { pieces: [Buffer.concat([head, body])] });
      expectInvalidFile(answers[0]);
      expect(await stored()).toBe(0);
      await expectAlive(id);
    });

    it('the same body whose last bytes arrive late: 400 MR_INVALID_FILE, not 500', async () => {
      const id = await album();
      const body = part('B', png);
      const head = requestHead('PUT', `/album/${id}/cover`, { 'Content-Type': 'multipart/form-data; boundary=B', 'Content-Length': body.length });
      const { answers } = await sendRaw(t.app, { pieces: [head, body.subarray(0, 120), body.subarray(120)] });
      expectInvalidFile(answers[0]);
      expect(await stored()).toBe(0);
      await expectAlive(id);
    });
  });

  describe("the whole request counts against the field's limit (its maxSize and a small allowance for the multipart framing)", () => {
    const KB = 1024;
    /**
     * A body sent chunked in 16 KiB pieces: `before` bytes, the file part and the closing boundary,
     * then `after` bytes; with `upTo`, only its first pieces past that many bytes, the client then
     * waiting for an answer. (A client that kept sending past the answer would race the server's
     * close: the system resets a connection closed with bytes unread, and the answer may be lost.)
     */
    const framed = (id: string, { before = 0, after = 0, upTo = Infinity }: { before?: number; after?: number; upTo?: number }) => {
      const body = Buffer.concat([
        before ? Buffer.concat([Buffer.alloc(before - 2, 'p'), Buffer.from('\r\n')]) : Buffer.alloc(0),
        part('B', png),
        closing('B'),
        Buffer.alloc(after, 'e'),
      ]);
      const pieces: Buffer[] = [];
      for (let at = 0; at < body.length && at <= upTo; at += 16 * KB) pieces.push(body.subarray(at, at + 16 * KB));
      const framing = chunked(...pieces);
      return [
        requestHead('POST', `/album/${id}/photos`, { 'Content-Type': 'multipart/form-data; boundary=B', 'Transfer-Encoding': 'chunked' }),
        ...(upTo < body.length ? framing.slice(0, -1) : framing),
      ];
    };

    it.each([
      ['a preamble (before the first boundary)', { before: 400 * KB }],
      ['an epilogue (after the closing boundary)', { after: 400 * KB }],
    ])(
      'refuses %s of 400 KiB on a 64 KiB field, chunked, as soon as the body passes 64 + 16 KiB: 413, the connection closed, nothing stored',
      async (_label, sizes) => {
        const id = await album();
        const exchange = await sendRaw(t.app, { pieces: framed(id, { ...sizes, upTo: 96 * KB }), untilClosed: true });
        expect(exchange.answers[0]).toMatchObject({ status: 413, headers: { connection: 'close' }, body: { code: 'MR_PAYLOAD_TOO_LARGE' } });
        expect(exchange.closedByServer).toBe(true);
        expect(await stored()).toBe(0);
        await expectAlive(id);
      },
    );

    it('takes a preamble and an epilogue within the allowance', async () => {
      const id = await album();
      const { answers } = await sendRaw(t.app, { pieces: framed(id, { before: 4 * KB, after: 4 * KB }) });
      expect(answers[0]).toMatchObject({ status: 201 });
    });
  });

  describe('an upload refused before its body is read', () => {
    /** An upload of a 200 KiB body sent whole, and a GET pipelined behind it on the same connection. */
    const pipelined = (method: string, path: string, headers: Record<string, string> = {}) => {
      const body = Buffer.concat([png, Buffer.alloc(200 * 1024)]);
      return [
        Buffer.concat([
          requestHead(method, path, { 'Content-Type': 'image/png', 'Content-Length': body.length, ...headers }),
          body,
          requestHead('GET', '/albums', {}),
        ]),
      ];
    };

    it.each([
      ['404 (no such document)', 'PUT', () => `/album/${MISSING_ID}/cover`, {}, 404],
      ['412 (a stale If-Match)', 'PUT', (id: string) => `/album/${id}/cover`, { 'If-Match': '"stale"' }, 412],
      ['403 (a guard)', 'POST', (id: string) => `/album/${id}/locked`, {}, 403],
    ] as const)(
      '%s: answers with Connection: close, closes it, and never serves what was pipelined behind the body',
      async (_label, method, path, headers, status) => {
        const id = await album();
        const exchange = await sendRaw(t.app, { pieces: pipelined(method, path(id), headers), answers: 2 });
        expect(exchange.answers.map((answer) => [answer.status, answer.headers.connection])).toEqual([[status, 'close']]);
        expect(exchange.closedByServer).toBe(true);
        expect(await stored()).toBe(0);
      },
    );

    it(
      'reads and discards what the client still sends after the answer, without parsing it: a write pipelined behind the body never ' + 'reaches the app',
      async () => {
        const server = t.app.getHttpServer() as Server;
        const seen: string[] = [];
        const see = (request: IncomingMessage) => seen.push(`${request.method} ${request.url}`);
        server.on('request', see);
        try {
          const write = Buffer.from(JSON.stringify({ title: 'pipelined' }));
          const [upload] = pipelined('PUT', `/album/${MISSING_ID}/cover`);
          // The write comes in a later piece, once the server is reading what follows its answer.
          const pieces = [
            upload,
            Buffer.concat([requestHead('POST', '/album', { 'Content-Type': 'application/json', 'Content-Length': write.length }), write]),
          ];
          const exchange = await sendRaw(t.app, { pieces, untilClosed: true });
          expect(exchange.answers.map((answer) => [answer.status, answer.headers.connection])).toEqual([[404, 'close']]);
          expect(exchange.closedByServer).toBe(true);
          expect(seen).toEqual([`PUT /album/${MISSING_ID}/cover`]);
          expect(await t.connection.db!.collection('albums').countDocuments({ title: 'pipelined' })).toBe(0);
        } finally {
          server.off('request', see);
        }
      },
    );

    it('keeps the connection of a refused request whose body was read (a JSON write)', async () => {
      const body = Buffer.from(JSON.stringify({ title: 5, extra: true }));
      const pieces = [
        Buffer.concat([
          requestHead('POST', '/album', { 'Content-Type': 'application/json', 'Content-Length': body.length }),
          body,
          requestHead('GET', '/albums', {}),
        ]),
      ];
      const exchange = await sendRaw(t.app, { pieces, answers: 2 });
      expect(exchange.answers.map((answer) => answer.status)).toEqual([400, 200]);
    });
  });

  describe('a silent upload body (bodyTimeout)', () => {
    it('a raw body that stops arriving: 408 MR_REQUEST_TIMEOUT, the connection closed, nothing stored', async () => {
      const id = await album();
      const head = requestHead('PUT', `/album/${id}/slow`, { 'Content-Type': 'image/png', 'Content-Length': 10_000 });
      const exchange = await sendRaw(t.app, { pieces: [head, png], untilClosed: true });
      expect(exchange.answers[0]).toMatchObject({
        status: 408,
        headers: { connection: 'close' },
        body: { code: 'MR_REQUEST_TIMEOUT', details: [{ path: 'file' }] },
      });
      expect(exchange.closedByServer).toBe(true);
      expect(await stored()).toBe(0);
      await expectAlive(id);
    });

    it.each([
      ['before its file part', (body: Buffer) => body.subarray(0, 10)],
      ['inside its file', (body: Buffer) => body.subarray(0, body.indexOf('\r\n\r\n') + 40)],
      ['after its file, before the closing boundary', (body: Buffer) => body.subarray(0, body.length - 8)],
    ])('a multipart body that falls silent %s: 408 MR_REQUEST_TIMEOUT, nothing stored', async (_label, cut) => {
      const id = await album();
      const body = Buffer.concat([part('B', png), closing('B')]);
      const head = requestHead('PUT', `/album/${id}/slow`, { 'Content-Type': 'multipart/form-data; boundary=B', 'Content-Length': body.length });
      const exchange = await sendRaw(t.app, { pieces: [head, cut(body)], untilClosed: true });
      expect(exchange.answers[0]).toMatchObject({ status: 408, headers: { connection: 'close' }, body: { code: 'MR_REQUEST_TIMEOUT' } });
      expect(await stored()).toBe(0);
    });
  });

  // ---------------------------------------------------------------------------------------------
  // The fuzz: seeded mutations of a valid multipart body, a fixed count, bounded in time
  // ---------------------------------------------------------------------------------------------

  // A fixed seed and a fixed count, so that a commit that passes passes again, on a fast machine or a
  // slow one; set MODEL_ROUTES_FUZZ_SEED to explore others by hand.
  const SEED = process.env.MODEL_ROUTES_FUZZ_SEED ? Number(process.env.MODEL_ROUTES_FUZZ_SEED) : 230123;
  /** Cases per run (about 3 s; it runs in every CI pass). The test's own timeout bounds its time. */
  const CASES = 120;
  const FUZZ_TIMEOUT_MS = 60_000;

  interface Case {
    name: string;
    /** The request's multipart body (before any chunked framing). */
    body: Buffer;
    boundary: string;
    /** Sent with `Transfer-Encoding: chunked` instead of a `Content-Length`. */
    chunkedBody: boolean;
    /** Offsets where the bytes are split into separate writes (bytes arriving late). */
    splits: number[];
    /** The client leaves after this many bytes of the body. */
    leaveAfter?: number;
    route: 'cover' | 'photos';
  }

  const field = (boundary: string, name: string, value: string) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);

  /** The offsets worth cutting at: around every CRLF and every boundary, the ends, and a few at random. */
  function interestingOffsets(body: Buffer, boundary: string, random: () => number): number[] {
    const offsets = new Set<number>([0, 1, body.length - 1, body.length - 2, body.length - 4]);
    for (const needle of ['\r\n', `--${boundary}`]) {
      for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) {
        for (const delta of [-1, 0, 1, needle.length - 1, needle.length]) offsets.add(at + delta);
      }
    }
    for (let i = 0; i < 4; i++) offsets.add(Math.floor(random() * body.length));
    return [...offsets].filter((offset) => offset >= 0 && offset < body.length);
  }

  /** A file part whose `Content-Disposition` line holds a file name of `size` bytes. */
  const hugeHeaderLine = (boundary: string, size: number, image: Buffer) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${'a'.repeat(size)}.png"\r\nContent-Type: image/png\r\n\r\n`),
      image,
      Buffer.from('\r\n'),
      closing(boundary),
    ]);

  /** One mutated request, drawn from `random`. */
  function mutation(random: () => number, image: Buffer): Case {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const boundary = pick(['B', '----x', 'a'.repeat(70), '--------------------------1234567890']);
    const parts = [field(boundary, 'caption', 'hello'), part(boundary, image), part(boundary, 'second')];
    let body = Buffer.concat([parts[0], parts[1], closing(boundary)]);
    let name: string;
    const kind = pick([
      'truncated',
      'no closing boundary',
      'reordered',
      'bad header',
      'huge header line',
      'wrong boundary',
      'nested multipart',
      'garbage',
      'two files',
      'preamble and epilogue',
    ] as const);
    switch (kind) {
      case 'truncated': {
        const at = pick(interestingOffsets(body, boundary, random));
        body = body.subarray(0, at);
        name = `truncated at ${at}`;
        break;
      }
      case 'no closing boundary':
        body = Buffer.concat([parts[0], parts[1]]);
        name = kind;
        break;
      case 'reordered':
        body = Buffer.concat([parts[1], parts[0], closing(boundary)]);
        name = kind;
        break;
      case 'bad header': {
        const header = pick([
          'Content-Disposition form-data',
          'Content-Disposition: form-data; name="file"; filename="a\u0000.png"',
          ': empty name',
          'Content-Type: image/png\r\n\r\n',
          'X: \x7f\xff',
          "Content-Disposition: form-data; filename*=utf-8''%ZZ",
        ]);
        body = Buffer.concat([Buffer.from(`--${boundary}\r\n${header}\r\n\r\n`, 'latin1'), image, Buffer.from('\r\n'), closing(boundary)]);
        name = `bad header ${JSON.stringify(header)}`;
        break;
      }
      case 'huge header line': {
        const size = pick([1024, 20 * 1024, 60 * 1024]);
        body = hugeHeaderLine(boundary, size, image);
        name = `a part header line of ${size} bytes`;
        break;
      }
      case 'wrong boundary':
        body = Buffer.concat([part('other', image), closing('other')]);
        name = kind;
        break;
      case 'nested multipart': {
        const inner = Buffer.concat([part('inner', image), closing('inner')]);
        body = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="n.png"\r\nContent-Type: multipart/mixed; boundary=inner\r\n\r\n`,
          ),
          inner,
          Buffer.from('\r\n'),
          closing(boundary),
        ]);
        name = kind;
        break;
      }
      case 'garbage': {
        const bytes = Buffer.alloc(1 + Math.floor(random() * 400));
        for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
        body = random() < 0.5 ? bytes : Buffer.concat([Buffer.from(`--${boundary}\r\n`), bytes]);
        name = `${bytes.length} random bytes`;
        break;
      }
      case 'two files':
        body = Buffer.concat([parts[1], parts[2], closing(boundary)]);
        name = kind;
        break;
      case 'preamble and epilogue':
        body = Buffer.concat([Buffer.from('preamble\r\n'), parts[1], closing(boundary), Buffer.from('epilogue')]);
        name = kind;
        break;
    }
    const splits =
      random() < 0.5 ? [] : [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => Math.floor(random() * body.length)))].sort((a, b) => a - b);
    const leaveAfter = random() < 0.1 && body.length > 1 ? Math.floor(random() * body.length) : undefined;
    const chunkedBody = random() < 0.3;
    const route = pick(['cover', 'photos'] as const);
    return {
      name:
        `${name}${chunkedBody ? ', chunked' : ''}${splits.length ? `, split at ${splits.join(' ')}` : ''}` +
        (leaveAfter !== undefined ? `, the client leaving after ${leaveAfter}` : ''),
      body,
      boundary,
      chunkedBody,
      splits,
      leaveAfter,
      route,
    };
  }

  /** The request's bytes: its head and its body, framed, cut into the case's pieces. */
  function piecesOf(mutated: Case, id: string): Buffer[] {
    const path = mutated.route === 'cover' ? `/album/${id}/cover` : `/album/${id}/photos`;
    const method = mutated.route === 'cover' ? 'PUT' : 'POST';
    const body = mutated.leaveAfter !== undefined ? mutated.body.subarray(0, mutated.leaveAfter) : mutated.body;
    const cuts = [0, ...mutated.splits.filter((at) => at < body.length), body.length];
    const slices = cuts.slice(1).map((end, i) => body.subarray(cuts[i], end));
    const framing: Record<string, string | number> = mutated.chunkedBody ? { 'Transfer-Encoding': 'chunked' } : { 'Content-Length': mutated.body.length };
    const head = requestHead(method, path, { 'Content-Type': `multipart/form-data; boundary=${mutated.boundary}`, ...framing });
    if (!mutated.chunkedBody) return [head, ...slices];
    const framed = slices
      .filter((slice) => slice.length > 0)
      .map((slice) => Buffer.concat([Buffer.from(`${slice.length.toString(16)}\r\n`), slice, Buffer.from('\r\n')]));
    return [head, ...framed, ...(mutated.leaveAfter !== undefined ? [] : [Buffer.from('0\r\n\r\n')])];
  }

  describe(`seeded mutations of a multipart upload (MODEL_ROUTES_FUZZ_SEED=${SEED})`, () => {
    it(
      `answers each with a 2xx or a 4xx in the one error shape (never a 5xx), and keeps answering`,
      async () => {
        console.info(`upload fuzz: MODEL_ROUTES_FUZZ_SEED=${SEED} replays this run`);
        const random = seededRandom(SEED);
        const id = await album();
        let ran = 0;
        for (; ran < CASES; ran++) {
          const mutated = mutation(random, png);
          const context = `case ${ran} (seed ${SEED}): ${mutated.name}`;
          const { answers } = await sendRaw(t.app, { pieces: piecesOf(mutated, id), leave: mutated.leaveAfter !== undefined });
          const answer = answers[0];
          if (mutated.leaveAfter === undefined) {
            expect({ context, status: answer?.status }).toEqual({ context, status: expect.any(Number) });
            expect({ context, status: answer!.status, serverError: answer!.status >= 500 }).toEqual({ context, status: answer!.status, serverError: false });
            if (answer!.status >= 400 && answer!.body) {
              expect({ context, body: answer!.body }).toEqual({
                context,
                body: {
                  statusCode: answer!.status,
                  error: expect.any(String),
                  code: expect.stringMatching(/^MR_/),
                  message: expect.any(String),
                  ...(answer!.body.details ? { details: expect.any(Array) } : {}),
                },
              });
            }
          }
          expect({ context, alive: (await t.http().get(`/album/${id}`)).status }).toEqual({ context, alive: 200 });
        }
        console.info(`upload fuzz: ${ran} cases (MODEL_ROUTES_FUZZ_SEED=${SEED})`);
        expect(ran).toBe(CASES);
        await expectAlive(id);
      },
      FUZZ_TIMEOUT_MS,
    );

    /**
     * Case 106 of seed 230123: busboy refuses the part header after 16 KiB, and the 400 went out while
     * the client was still sending the rest. The server closed with bytes unread, the system reset
     * the connection, and the client saw ECONNRESET instead of the answer (about half the runs).
     */
    it(
      'answers case 106 of seed 230123 (a part header line of 61440 bytes, chunked, split at 42674) with its 400 every time, 30 rounds: the connection is ' +
        "closed after the client's last bytes are read, never reset under the answer",
      async () => {
        const boundary = '--------------------------1234567890';
        const replay: Case = {
          name: 'case 106',
          body: hugeHeaderLine(boundary, 60 * 1024, png),
          boundary,
          chunkedBody: true,
          splits: [42674],
          route: 'photos',
        };
        const id = await album();
        const rounds: Array<number | 'no answer'> = [];
        for (let round = 0; round < 30; round++) {
          const { answers } = await sendRaw(t.app, { pieces: piecesOf(replay, id) });
          rounds.push(answers[0]?.status ?? 'no answer');
          if (answers[0]) expectInvalidFile(answers[0]);
        }
        expect(rounds).toEqual(Array(30).fill(400));
        expect(await stored()).toBe(0);
        await expectAlive(id);
      },
    );
  });
}
