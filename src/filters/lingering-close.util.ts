import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/**
 * How long, and how many bytes, a connection answered with its request's body unread goes on
 * reading (and discarding) what the client still sends, once the answer and the server's FIN are
 * on their way. A client told `Connection: close` stops sending within a round trip; 2 s and 1 MiB
 * cover that on a slow link, and bound what one socket can make the server read for nothing.
 * Past either the connection is destroyed (and reset if the client is still sending).
 */
export const LINGER_MS = 2000;
export const LINGER_BYTES = 1024 * 1024;

type ClosingSocket = Socket & { destroySoon?: () => void };

/**
 * Closes the connection of a request answered before its body was read (an upload refused by a
 * guard, a missing document, a malformed part, a file too large) the way HTTP servers do (RFC 9112
 * section 9.6, nginx's `lingering_close`): the answer, then a half-close (FIN), then the rest of
 * what the client sends read and discarded until it closes its side, for at most `LINGER_MS` and
 * `LINGER_BYTES` (or `limits`). A plain close with bytes unread makes the system reset the
 * connection, and the reset can destroy the answer before the client reads it (the client sees
 * ECONNRESET, not the 4xx).
 *
 * Call it before the answer (with `Connection: close`) is sent. Node's HTTP server, under Express
 * and Fastify alike, ends such a response's socket with `socket.destroySoon()` once the response
 * is finished (`resOnFinish` in Node's `lib/_http_server.js`); this socket's `destroySoon` lingers
 * instead. The discarded bytes never reach Node's HTTP parser, which would otherwise take a request
 * pipelined behind the body for a new one and serve it.
 */
export function closeLingering(request: IncomingMessage, limits: LingerLimits = { ms: LINGER_MS, bytes: LINGER_BYTES }): void {
  const socket = request.socket as ClosingSocket | null;
  if (!socket || socket.destroyed || typeof socket.destroySoon !== 'function') return;
  socket.destroySoon = () => linger(socket, limits);
}

/** How long, and how many bytes, a connection lingers (`LINGER_MS` and `LINGER_BYTES`; a test sets its own). */
export interface LingerLimits {
  ms: number;
  bytes: number;
}

function linger(socket: Socket, limits: LingerLimits): void {
  // Once what is written (the answer, then the FIN) has gone out; destroying earlier would drop it.
  const destroyWhenSent = () => {
    clearTimeout(timer);
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  };
  // Unref'd: a lingering connection never keeps the process alive.
  const timer = setTimeout(() => socket.destroy(), limits.ms).unref();
  socket.once('close', () => clearTimeout(timer));
  socket.end();
  if (socket.readableEnded) {
    destroyWhenSent();
    return;
  }
  // Node's parser reads the socket through its 'data' listener, or straight from the handle in C++
  // until another 'data' listener is added: drop its listener, then add ours, which takes the
  // handle back from it. What follows never reaches the parser.
  for (const listener of socket.listeners('data')) socket.removeListener('data', listener as (chunk: Buffer) => void);
  let discarded = 0;
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.bytes) {
      clearTimeout(timer);
      socket.destroy();
    }
  });
  // The client closed its side: everything it sent is read, so the close resets nothing. (Before
  // Node's own 'end' listener, which would report the body cut short as a client error.)
  socket.prependOnceListener('end', destroyWhenSent);
  readAgain(socket);
  socket.resume();
}

/**
 * Starts the socket's handle reading again. While the parser read it, the request's unread body
 * stopped the handle (backpressure), and the stream still counts a read as pending, so `resume()`
 * alone would not restart it; Node's HTTP server restarts it the same way (`onSocketResume` in
 * `lib/_http_server.js`).
 */
function readAgain(socket: Socket): void {
  const handle = (socket as unknown as { _handle?: { reading?: boolean; readStart?: () => number } })._handle;
  if (handle && !handle.reading && typeof handle.readStart === 'function') {
    handle.reading = true;
    handle.readStart();
  }
}
