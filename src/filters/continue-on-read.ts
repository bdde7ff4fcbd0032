import type { OnApplicationBootstrap } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** The servers whose `Expect: 100-continue` is answered on the first read already (two registrations share one). */
const answering = new WeakSet<object>();

/**
 * Answers a request's `Expect: 100-continue` when something first reads its body, not on its
 * arrival. Node answers `100 Continue` at once unless the server has a `checkContinue` listener,
 * so a client that asks (curl does for a body over 1 MiB) sends the whole body even when the
 * request is refused before it is read: an upload too large for its field (its `Content-Length`),
 * refused by a guard, or to a document that does not exist. With this listener the request goes
 * on as any other, and `100 Continue` is written the first time its body is read (a body parser,
 * an upload's stream, your own handler's): a request answered before that gets its answer alone,
 * and its client never sends the body.
 *
 * Installed on the app's HTTP server (Express and Fastify alike) unless the app listens for
 * `checkContinue` itself: then its listener decides.
 */
export function continueOnFirstRead(server: Server): void {
  if (answering.has(server) || server.listenerCount('checkContinue') > 0) return;
  answering.add(server);
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    const read = request._read;
    request._read = function firstRead(this: IncomingMessage, size: number) {
      request._read = read;
      // Never after the answer began (Node reads what is left of an unread body once it is sent).
      if (!response.headersSent && !response.writableEnded) response.writeContinue();
      return read.call(this, size);
    };
    server.emit('request', request, response);
  });
}

/** Installs `continueOnFirstRead` on the app's HTTP server at start-up (none in an app without HTTP). */
export class ContinueOnRead implements OnApplicationBootstrap {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (typeof server?.on === 'function' && typeof server.listenerCount === 'function') continueOnFirstRead(server);
  }
}
