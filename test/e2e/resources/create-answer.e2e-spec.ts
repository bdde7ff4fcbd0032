/**
 * A create answers the document as every other route does, whatever `toObject` options the schema
 * sets (the repository reads a created document back without options where the schema has none),
 * and its `Location` is a path, whatever host the request line names (issue 23 item 10).
 */
import { connect, type AddressInfo } from 'node:net';
import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { GeneratedResource } from '../../../src/index.js';
import { createTestApp, type TestApp } from '../../support/app.js';
import { useEngine } from '../../support/engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function createAnswerSpec(): void {
  @GeneratedResource()
  @Schema({ toObject: { virtuals: true, getters: true, transform: (_doc: unknown, ret: Record<string, unknown>) => ({ ...ret, transformed: true }) } })
  class Badge {
    @Prop({ required: true, get: (value: string) => value?.toUpperCase() }) label!: string;
  }
  const BadgeSchema = SchemaFactory.createForClass(Badge);
  BadgeSchema.virtual('shout').get(function (this: Badge) {
    return `${this.label}!`;
  });

  @GeneratedResource()
  @Schema()
  class Sticker {
    @Prop({ required: true }) label!: string;
    @Prop({ default: 3 }) size?: number;
  }

  const engine = useEngine();
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(engine, { resources: [{ resource: Badge, schema: BadgeSchema }, Sticker] });
  });
  afterAll(() => t?.close());

  it("a schema's toObject virtuals, getters and transform stay out of the create's answer", async () => {
    const created = (await t.http().post('/badge').send({ label: 'gold' }).expect(201)).body;
    expect(created).toEqual({ _id: expect.any(String), label: 'gold' });
    expect((await t.http().get(`/badge/${created._id}`).expect(200)).body).toEqual(created);
  });

  it('without toObject options, the answer is the stored document: defaults in, version key out', async () => {
    const created = (await t.http().post('/sticker').send({ label: 'star' }).expect(201)).body;
    expect(created).toEqual({ _id: expect.any(String), label: 'star', size: 3 });
    expect((await t.http().get(`/sticker/${created._id}`).expect(200)).body).toEqual(created);
  });

  /** Sends `head` (a request line and headers, `Connection: close`) and `body` on a raw socket; the status and headers of the answer. */
  async function rawRequest(head: string, body: string): Promise<{ status: number; headers: Record<string, string> }> {
    const server = t.app.getHttpServer() as { listening: boolean; address(): AddressInfo };
    if (!server.listening) await t.app.listen(0, '127.0.0.1');
    const socket = connect(server.address().port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise<void>((resolve, reject) => socket.on('end', resolve).on('error', reject));
    socket.write(`${head}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    await ended;
    const [statusLine, ...lines] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')[0].split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    return { status: Number(statusLine.split(' ')[1]), headers };
  }

  describe('Location', () => {
    it('is the path of the new document, not a URL of the host an absolute request line names', async () => {
      const answer = await rawRequest('POST http://evil.example/sticker HTTP/1.1\r\nHost: evil.example', '{"label":"x"}');
      expect(answer.status).toBe(201);
      expect(answer.headers.location).toMatch(/^\/sticker\/[0-9a-f]{24}$/);
    });

    it('is a path for an origin-form request line too, whatever the Host header says', async () => {
      const answer = await rawRequest('POST /sticker HTTP/1.1\r\nHost: evil.example', '{"label":"y"}');
      expect(answer.status).toBe(201);
      expect(answer.headers.location).toMatch(/^\/sticker\/[0-9a-f]{24}$/);
    });

    it('never starts with // (a reference to another host), whatever slashes the request line repeats', async () => {
      for (const target of ['//sticker', '//evil.example/sticker', 'http://evil.example//sticker']) {
        const answer = await rawRequest(`POST ${target} HTTP/1.1\r\nHost: 127.0.0.1`, '{"label":"z"}');
        if (answer.headers.location !== undefined) expect(answer.headers.location).toMatch(/^\/[^/]/);
      }
    });
  });
}
