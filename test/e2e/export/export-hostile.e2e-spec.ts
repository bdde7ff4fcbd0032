import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Prop, Schema } from '@nestjs/mongoose';
import type { CommandStartedEvent } from 'mongodb';
import { GeneratedResource } from '../../../src/index.js';
import type { Response } from 'supertest';
import { createTestApp, testAdapter, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';
import { expectError } from '../../support/expect-error.js';
import { expectRefusedUnchanged } from '../../support/expect-refused.js';
import { portOf } from '../../support/raw-socket.js';

/**
 * Issue 27: the export routes attacked. Malformed and hostile searches are refused in the error
 * shape before any byte, with nothing changed; a client that goes away mid-export stops the
 * reads and closes the engine's cursor; concurrent streams are bounded (`admission.exports`).
 */
export function exportHostileSpec(): void {
  const engine = useEngine();

  @GeneratedResource({ path: 'ledger', plural: 'ledgers', routes: { export: true, exportPost: true } })
  @Schema()
  class Ledger {
    @Prop({ required: true }) n!: number;
    @Prop() text?: string;
    @Prop({ select: false }) secret?: string;
  }

  /** 2,500 documents of 4 kB: 10 MB of CSV, more than the kernel's socket buffers hold (4 MB to send, 128 kB to receive for a client that does not read). */
  const DOCUMENTS = 2500;
  let t: TestApp;
  let port: number;
  /** The cursor commands the app's connection sent, since the last reset. */
  let commands: Array<{ name: string; cursors?: string[] }> = [];

  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [Ledger], admission: { exports: 1 } }, { monitorCommands: true });
    t.connection.getClient().on('commandStarted', (event: CommandStartedEvent) => {
      if (event.commandName === 'killCursors') commands.push({ name: 'killCursors', cursors: (event.command.cursors as unknown[]).map(String) });
      else if (event.commandName === 'getMore' || event.commandName === 'find') commands.push({ name: event.commandName });
    });
    await t.connection.model('Ledger').insertMany([{ n: 1, text: 'one', secret: 's3cret' }]);
    port = await portOf(t.app);
  });
  afterAll(() => t?.close());
  beforeEach(() => {
    commands = [];
  });

  /** Starts an export and resolves with its response once the headers are in, the body left unread (paused). */
  function openExport(path: string): Promise<{ response: IncomingMessage; leave(): void }> {
    return new Promise((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (response) => {
        response.pause();
        resolve({ response, leave: () => request.destroy() });
      });
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)));
      request.end();
    });
  }

  /** Resolves once `done` holds for the commands seen, checked at each command (no timer). */
  function untilCommands(done: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        t.connection.getClient().off('commandStarted', check);
        resolve();
      };
      t.connection.getClient().on('commandStarted', check);
      check();
    });
  }

  describe('refused before any byte, nothing changed', () => {
    const rows: Array<[string, () => PromiseLike<Response>, number, string]> = [
      ['an unknown format', () => t.http().get('/ledgers/export?format=xlsx%00csv'), 400, 'MR_INVALID_QUERY'],
      ['format given twice', () => t.http().get('/ledgers/export?format=csv&format=json'), 400, 'MR_INVALID_QUERY'],
      ['format as an object', () => t.http().get('/ledgers/export?format[$ne]=csv'), 400, 'MR_INVALID_QUERY'],
      ['a hidden field in the filter', () => t.http().get('/ledgers/export?secret=s3cret'), 400, 'MR_INVALID_QUERY'],
      ['a hidden field in select', () => t.http().get('/ledgers/export?select=secret'), 400, 'MR_INVALID_QUERY'],
      [
        'a regex on a hidden field',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send({ query: { secret: { $regex: '^s' } } }),
        400,
        'MR_INVALID_QUERY',
      ],
      [
        '$where',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send({ query: { $where: 'sleep(10000)' } }),
        400,
        'MR_INVALID_QUERY',
      ],
      [
        '$function in $expr',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send({ query: { $expr: { $function: { body: 'x', args: [], lang: 'js' } } } }),
        400,
        'MR_INVALID_QUERY',
      ],
      // Fastify's JSON parser refuses a `__proto__` key before the library sees it.
      [
        'a __proto__ key',
        () => t.http().post('/ledgers/export').set('Content-Type', 'application/json').send('{"query":{"__proto__":{"n":1}}}'),
        400,
        testAdapter() === 'fastify' ? 'MR_INVALID_JSON' : 'MR_INVALID_QUERY',
      ],
      ['a truncated body', () => t.http().post('/ledgers/export').set('Content-Type', 'application/json').send('{"query":{"n":'), 400, 'MR_INVALID_JSON'],
      ['a body that is not JSON', () => t.http().post('/ledgers/export').set('Content-Type', 'text/csv').send('n\n1'), 415, 'MR_UNSUPPORTED_MEDIA_TYPE'],
      [
        'an array body',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send([{ n: 1 }]),
        400,
        'MR_INVALID_BODY',
      ],
      ['an unknown body key', () => t.http().post('/ledgers/export').send({ format: 'csv' }), 400, 'MR_INVALID_QUERY'],
      ['a negative limit', () => t.http().get('/ledgers/export?limit=-1'), 400, 'MR_INVALID_QUERY'],
      ['a limit that is not a number', () => t.http().get('/ledgers/export?limit=1e9'), 400, 'MR_INVALID_QUERY'],
      ['a tampered cursor', () => t.http().get('/ledgers/export?sort=n&after=eyJ2IjoxLCJrIjpbMV19.AAAAAAAAAAAAAAAAAAAAAA'), 400, 'MR_INVALID_CURSOR'],
      ['a value the field cannot hold', () => t.http().get('/ledgers/export?n[gt]=many'), 400, 'MR_INVALID_VALUE'],
      [
        'too deep a query',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send({ query: JSON.parse(`${'{"$and":['.repeat(12)}{"n":1}${']}'.repeat(12)}`) }),
        400,
        'MR_INVALID_QUERY',
      ],
      [
        'a regex too long',
        () =>
          t
            .http()
            .post('/ledgers/export')
            .send({ query: { text: { $regex: 'x'.repeat(300) } } }),
        400,
        'MR_INVALID_QUERY',
      ],
    ];

    it.each(rows)('%s', async (_name, send, status, code) => {
      const response = await expectRefusedUnchanged(t.connection, () => send(), { status, code });
      expect(response.headers['content-disposition']).toBeUndefined();
    });
  });

  it('answers a stored script as data, never as a page: an attachment, nosniff, a non-HTML type', async () => {
    await t.connection.model('Ledger').create({ n: -1, text: '<script>alert(1)</script>' });
    try {
      for (const format of ['csv', 'json', 'ndjson']) {
        const response = await t.http().get(`/ledgers/export?n=-1&format=${format}`).expect(200);
        expect(response.headers['content-disposition']).toMatch(/^attachment;/);
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['content-type']).not.toMatch(/html/);
        expect(response.text).toContain('<script>alert(1)</script>');
      }
    } finally {
      await t.connection.model('Ledger').deleteOne({ n: -1 });
    }
  });

  describe('streams (10 MB)', () => {
    beforeAll(async () => {
      const text = 'x'.repeat(4000);
      const ledgers = t.connection.model('Ledger');
      await ledgers.deleteMany({});
      for (let from = 0; from < DOCUMENTS; from += 500) {
        await ledgers.insertMany(Array.from({ length: 500 }, (_, i) => ({ n: from + i, text, secret: 's3cret' })));
      }
    });

    it('a client that goes away mid-export stops the reads: the cursor is killed before its end, and the server serves the next request', async () => {
      const { response, leave } = await openExport('/ledgers/export?sort=n');
      expect(response.statusCode).toBe(200);
      // The server writes until the socket's buffers are full, then waits on the client: 10 MB cannot be in flight.
      const killed = untilCommands(() => commands.some((command) => command.name === 'killCursors'));
      leave();
      await killed;
      const getMores = commands.filter((command) => command.name === 'getMore').length;
      // 2,500 documents in pages of 500: the first page came with the find, four getMores would read the rest.
      expect(getMores).toBeLessThan(4);
      const next = await t.http().get('/ledgers/export?limit=2&select=n&sort=n').expect(200);
      expect(
        next.text
          .trimEnd()
          .split('\n')
          .map((line) => line.split(',')[1]),
      ).toEqual(['n', '0', '1']);
    });

    it(
      'bounds the exports that stream at once (admission.exports): the next is a 503 with Retry-After, and the place comes back when the ' + 'client leaves',
      async () => {
        const first = await openExport('/ledgers/export');
        try {
          const refused = await t.http().get('/ledgers/export?limit=1');
          expectError(refused, 503, 'MR_OVERLOADED');
          expect(refused.headers['retry-after']).toBe('1');
          // The other routes are not held by a streaming export.
          await t.http().get('/ledgers?limit=1').expect(200);
        } finally {
          first.leave();
        }
        await untilCommands(() => commands.some((command) => command.name === 'killCursors'));
        await t.http().get('/ledgers/export?limit=1').expect(200);
      },
    );
  });
}
