import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { closeLingering, type LingerLimits } from '../../../src/filters/lingering-close.util.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function lingeringCloseUtilSpec(): void {
  /**
   * A bare Node HTTP server whose one route refuses its request before reading the body, as the
   * exception filter does: a 400 with `Connection: close`, the connection closed lingering. (The
   * end-to-end proofs, on Express and Fastify against the engine, are in upload-fuzz.e2e-spec.ts.)
   */
  let server: Server;
  let limits: LingerLimits;
  let served: string[];
  let refused: Promise<Socket>;

  beforeEach(async () => {
    served = [];
    let onRefused!: (socket: Socket) => void;
    refused = new Promise((resolve) => (onRefused = resolve));
    server = createServer((request: IncomingMessage, response) => {
      served.push(`${request.method} ${request.url}`);
      closeLingering(request, limits);
      response.writeHead(400, { 'Content-Type': 'text/plain', 'Content-Length': 7, Connection: 'close' });
      response.end('refused');
      onRefused(request.socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterEach(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  interface Client {
    socket: Socket;
    /** Everything the server sent, once it half-closed its side. */
    answer: Promise<string>;
    /** The client's socket errors (ECONNRESET: the server reset the connection). */
    errors: string[];
  }

  /** A client that keeps its side open when the server ends its own (as a client still uploading does). */
  async function client(): Promise<Client> {
    const socket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, allowHalfOpen: true });
    await once(socket, 'connect');
    const errors: string[] = [];
    socket.on('error', (error: NodeJS.ErrnoException) => errors.push(error.code ?? error.message));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const answer = new Promise<string>((resolve) => socket.once('end', () => resolve(Buffer.concat(chunks).toString('latin1'))));
    return { socket, answer, errors };
  }

  /** Settles when `socket` closes (an 'error' before it is part of closing, not a failure here). */
  const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));

  const head = (length: number) => Buffer.from(`PUT /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${length}\r\n\r\n`);

  describe('closeLingering', () => {
    it(
      'sends the answer and a FIN, reads the rest of the body and what is pipelined behind it without serving it, and closes once the ' +
        'client closes its side',
      async () => {
        limits = { ms: 60_000, bytes: 1024 * 1024 };
        const { socket, answer, errors } = await client();
        const body = Buffer.alloc(200 * 1024, 'b');
        socket.write(Buffer.concat([head(body.length), body.subarray(0, 1000)]));
        const serverSide = await refused;
        const serverErrors: string[] = [];
        serverSide.on('error', (error: NodeJS.ErrnoException) => serverErrors.push(error.code ?? error.message));
        expect(await answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nrefused$/);
        // The client goes on sending after the answer: the rest of the body, then a pipelined request.
        socket.write(body.subarray(1000));
        socket.end(Buffer.from('DELETE /everything HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
        await closed(serverSide);
        await closed(socket);
        expect(served).toEqual(['PUT /upload']);
        expect({ client: errors, server: serverErrors }).toEqual({ client: [], server: [] });
      },
    );

    it(`closes a connection whose client keeps sending past the byte bound`, async () => {
      limits = { ms: 60_000, bytes: 64 * 1024 };
      const { socket, answer } = await client();
      socket.write(Buffer.concat([head(10 * 1024 * 1024), Buffer.alloc(1000)]));
      const serverSide = await refused;
      await answer;
      let sent = 0;
      const serverClosed = closed(serverSide);
      // Writes until the server's close shows (bounded: far more than the bound and the socket buffers).
      while (!serverSide.destroyed && sent < 64 * 1024 * 1024) {
        await new Promise<void>((resolve) => socket.write(Buffer.alloc(16 * 1024), () => resolve()));
        sent += 16 * 1024;
      }
      await serverClosed;
      expect(sent).toBeLessThan(64 * 1024 * 1024);
      socket.destroy();
    });

    it('closes a connection whose client neither sends nor closes, once the time bound passes', async () => {
      limits = { ms: 50, bytes: 1024 * 1024 };
      const { socket, answer } = await client();
      socket.write(Buffer.concat([head(1000), Buffer.alloc(10)]));
      const serverSide = await refused;
      await answer;
      await closed(serverSide);
      expect(serverSide.destroyed).toBe(true);
      socket.destroy();
    });
  });
}
