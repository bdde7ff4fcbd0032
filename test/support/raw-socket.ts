import { connect, type AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';

/** One HTTP answer as it came off the socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body, parsed as JSON when it is JSON. */
  body?: Record<string, unknown>;
  text: string;
}

/** What a raw exchange saw: the answers in their order, and whether the server closed the connection. */
export interface RawExchange {
  answers: RawAnswer[];
  /** The server ended the connection (or reset it) before the client did. */
  closedByServer: boolean;
  /** Bytes of the request the client had written when the first answer arrived (all of them if none came). */
  sentBeforeAnswer: number;
}

export interface RawSendOptions {
  /**
   * The pieces of the request, written one by one: after each write the client waits for the
   * write to be flushed and for the event loop to turn (`setImmediate`), so the server sees them
   * as separate reads ("bytes arriving late"). A single piece arrives in one read.
   */
  pieces: Buffer[];
  /** How many final answers to wait for (pipelined requests); default 1. An informational one (`100 Continue`) is kept in `answers` but not counted. */
  answers?: number;
  /** Destroys the socket after the last piece instead of waiting for answers: a client that leaves mid-body. */
  leave?: boolean;
  /** Stops writing once an answer has arrived (the rest of a large body is never sent). */
  stopOnAnswer?: boolean;
  /** Settles only when the server closes the connection, not on the answers (a test of a connection that must close). */
  untilClosed?: boolean;
}

/** The app's server listening on 127.0.0.1, and its port. */
export async function portOf(app: INestApplication): Promise<number> {
  const server = app.getHttpServer() as {
    address(): AddressInfo | string | null;
    listening: boolean;
    listen(port: number, host: string, cb: () => void): void;
  };
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * Sends bytes to the app over a raw TCP socket, as supertest cannot: truncated bodies, chunked
 * bodies of any framing, pipelined requests, bodies in late pieces, a client that leaves. Settles
 * when the expected answers arrived, or when the connection closed (whichever comes first).
 */
export async function sendRaw(
  app: INestApplication,
  { pieces, answers: wanted = 1, leave = false, stopOnAnswer = false, untilClosed = false }: RawSendOptions,
): Promise<RawExchange> {
  const port = await portOf(app);
  const socket = connect({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let received = Buffer.alloc(0);
  const answers: RawAnswer[] = [];
  let sent = 0;
  let sentBeforeAnswer: number | undefined;
  let closedByServer = false;
  let leaving = false;
  const done = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (let answer = parseAnswer(received); answer; answer = parseAnswer(received)) {
        answers.push(answer.answer);
        if (answer.answer.status >= 200) sentBeforeAnswer ??= sent;
        received = received.subarray(answer.length);
      }
      if (answers.filter((answer) => answer.status >= 200).length >= wanted && !untilClosed) resolve();
    });
    socket.on('error', () => undefined); // a reset is a close, seen below
    socket.on('close', () => {
      if (!leaving) closedByServer = true;
      resolve();
    });
  });
  const write = async () => {
    for (const piece of pieces) {
      if (socket.destroyed || (stopOnAnswer && answers.some((answer) => answer.status >= 200))) return;
      await new Promise<void>((resolve) => socket.write(piece, () => resolve()));
      sent += piece.length;
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (leave) {
      leaving = true;
      socket.destroy();
    }
  };
  await write();
  await done;
  leaving = true;
  socket.destroy();
  return { answers, closedByServer, sentBeforeAnswer: sentBeforeAnswer ?? sent };
}

/** The first whole answer in `bytes` (a `Content-Length` or chunked body), and its length; undefined until it is whole. */
function parseAnswer(bytes: Buffer): { answer: RawAnswer; length: number } | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine.split(' ')[1]);
  let body: Buffer;
  let length: number;
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = end + 4;
    for (;;) {
      const lineEnd = bytes.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16);
      if (bytes.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
      if (size === 0) break;
    }
    body = Buffer.concat(parts);
    length = at;
  } else {
    const size = status === 304 || status === 204 ? 0 : Number(headers['content-length'] ?? 0);
    if (bytes.length < end + 4 + size) return undefined;
    body = bytes.subarray(end + 4, end + 4 + size);
    length = end + 4 + size;
  }
  const text = body.toString('utf8');
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { answer: { status, headers, body: json, text }, length };
}

/** A request's head: the request line, `Host`, the given headers, and a blank line. */
export function requestHead(method: string, path: string, headers: Record<string, string | number>): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
}

/** `body` as one chunk of a chunked body followed by the last chunk (or pieces of it, each its own chunk). */
export function chunked(...pieces: Buffer[]): Buffer[] {
  return [
    ...pieces.filter((piece) => piece.length > 0).map((piece) => Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])),
    Buffer.from('0\r\n\r\n'),
  ];
}

/** What a client that waits for `100 Continue` saw: the first answer, and the final one when it sent its body. */
export interface ContinueExchange {
  first: RawAnswer;
  /** The answer to the body, sent only after a `100 Continue`. */
  final?: RawAnswer;
  /** Bytes of the body the client sent. */
  sentBody: number;
}

/**
 * Sends a request as a client that asks `Expect: 100-continue` and waits for the server's word
 * before its body (RFC 9110 section 10.1.1): the head alone, then the body only after `100
 * Continue`. A final answer instead means the body is never sent. No timer: a server that answers
 * neither would leave the test to its time limit.
 */
export async function sendExpectingContinue(app: INestApplication, head: Buffer, body: Buffer): Promise<ContinueExchange> {
  const port = await portOf(app);
  const socket = connect({ host: '127.0.0.1', port });
  let received = Buffer.alloc(0);
  const answers: RawAnswer[] = [];
  const waiters: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    for (let answer = parseAnswer(received); answer; answer = parseAnswer(received)) {
      answers.push(answer.answer);
      received = received.subarray(answer.length);
    }
    waiters.splice(0).forEach((wake) => wake());
  });
  socket.on('error', () => undefined);
  socket.on('close', () => waiters.splice(0).forEach((wake) => wake()));
  const answer = async (index: number): Promise<RawAnswer | undefined> => {
    while (answers.length <= index && !socket.destroyed && !socket.readableEnded) await new Promise<void>((wake) => waiters.push(wake));
    return answers[index];
  };
  try {
    await new Promise<void>((resolve) => socket.write(head, () => resolve()));
    const first = await answer(0);
    if (!first) throw new Error('the server closed the connection without an answer');
    if (first.status !== 100) return { first, sentBody: 0 };
    await new Promise<void>((resolve) => socket.write(body, () => resolve()));
    return { first, final: await answer(1), sentBody: body.length };
  } finally {
    socket.destroy();
  }
}
