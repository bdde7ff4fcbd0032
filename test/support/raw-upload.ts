import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';

/** What a client that streams a body saw: the answer (if one came), and how much it had sent by then. */
export interface StreamedUpload {
  status?: number;
  body?: Record<string, unknown>;
  /** Bytes the client had written when the answer arrived (or when it stopped). */
  sentBeforeAnswer: number;
  error?: string;
}

/**
 * Streams `total` bytes (the `head` first, then zeros) to the app as a chunked request body,
 * `chunkSize` at a time, waiting for each write to drain, and stops as soon as an answer arrives
 * (or after `stopAfter` bytes, leaving the request unfinished and then destroying it: an
 * interrupted upload). GridFS stores a chunk per 255 KiB received: pause past that to see one.
 */
export async function streamUpload(
  app: INestApplication,
  path: string,
  {
    head,
    total,
    chunkSize = 64 * 1024,
    headers = {},
    stopAfter,
    pauseAfter,
    method = 'PUT',
  }: {
    head: Buffer;
    total: number;
    chunkSize?: number;
    headers?: Record<string, string>;
    stopAfter?: number;
    /** Stops writing once exactly `bytes` are sent (no piece crosses it), until `until` settles. */
    pauseAfter?: { bytes: number; until: Promise<unknown> };
    method?: string;
  },
): Promise<StreamedUpload> {
  const server = app.getHttpServer() as {
    address(): AddressInfo | string | null;
    listening: boolean;
    listen(port: number, host: string, cb: () => void): void;
  };
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve) => {
    let sent = 0;
    let answered = false;
    const result: StreamedUpload = { sentBeforeAnswer: 0 };
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers: { 'Content-Type': 'image/png', ...headers } }, (res) => {
      answered = true;
      result.status = res.statusCode;
      result.sentBeforeAnswer = sent;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          result.body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // not JSON
        }
        resolve(result);
      });
      res.on('error', () => resolve(result));
    });
    req.on('error', (error) => {
      if (!answered) {
        result.error = (error as NodeJS.ErrnoException).code ?? error.message;
        result.sentBeforeAnswer = sent;
        resolve(result);
      }
    });
    const pump = async () => {
      while (!answered && sent < total) {
        if (pauseAfter && sent >= pauseAfter.bytes) {
          await pauseAfter.until;
          pauseAfter = undefined;
        }
        if (stopAfter !== undefined && sent >= stopAfter) {
          req.destroy();
          result.sentBeforeAnswer = sent;
          resolve(result);
          return;
        }
        // Never past the pause: a piece that crossed it would send what the pause is to hold back
        // (and, the last piece, end the body without any pause at all).
        const size = Math.min(chunkSize, total - sent, pauseAfter ? pauseAfter.bytes - sent : Infinity);
        const chunk = sent === 0 ? Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length))]) : Buffer.alloc(size);
        sent += chunk.length;
        if (!req.write(chunk))
          await new Promise((drained) => {
            req.once('drain', drained);
            req.once('close', drained);
          });
        if (req.destroyed) return;
      }
      if (!answered && !req.destroyed) req.end();
    };
    void pump();
  });
}
