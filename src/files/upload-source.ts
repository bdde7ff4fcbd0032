import { article } from '../utils/naming.util.js';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { fileError, fileTooLarge } from './file-errors.js';
import { fileNameOf, sanitizeFileName } from './file-name.util.js';
import type { FileFieldDefinition } from './file-options.js';

/** The file a request uploads: its bytes as they arrive, its name, the type the client says it is. */
export interface UploadSource {
  bytes: AsyncIterable<Buffer>;
  name?: string;
  declaredType?: string;
  /**
   * Once the file is read: settles when the whole request has been, and was whole (a multipart body
   * may hold more after the file; a client may have left mid-way). A failure means the file must go.
   */
  complete(): Promise<void>;
  /**
   * Stops using the request (after a failure): what still arrives is discarded until the response,
   * which closes the connection, is sent. (Pausing would leave bytes unread in the socket when it
   * closes, and the system then resets the connection, dropping the answer on its way.)
   */
  stop(): void;
}

/** Express's request, or Fastify's (whose Node request is `raw`). */
export interface UploadRequest {
  headers: Record<string, string | string[] | undefined>;
  raw?: IncomingMessage;
  body?: unknown;
}

/** Room for a multipart body's boundaries and part headers around a file of the largest size. */
const MULTIPART_OVERHEAD = 16 * 1024;

/** What bounds the reading of an upload: the field's `maxSize` and `bodyTimeout`. */
export type UploadLimits = Pick<FileFieldDefinition, 'maxSize' | 'bodyTimeout'>;

/** The bounds of a multipart body, and the errors past them. */
interface MultipartLimits {
  /** Bytes of the whole body. */
  bytes: number;
  tooLarge: () => ModelRoutesException;
  /** Milliseconds to wait on the client at any point. */
  timeout: number;
  timedOut: () => ModelRoutesException;
}

/**
 * Reads the file of an upload request, streamed: `multipart/form-data` (the first file part; a
 * second one is a 400 `MR_INVALID_FILE`), or the raw body with its `Content-Type` (its name from a
 * `Content-Disposition: attachment; filename="..."` header). A `Content-Length` larger than the
 * field allows is a 413 before any byte is read. Waiting on the client longer than `bodyTimeout`
 * (for the file part to begin, for the next bytes of the file, for the body's end) is a 408.
 */
export async function readUpload(request: UploadRequest, { maxSize, bodyTimeout }: UploadLimits, where: string): Promise<UploadSource> {
  const headers = request.headers;
  const type = String(headers['content-type'] ?? '');
  const multipart = /^multipart\/form-data\s*;/i.test(type);
  const length = Number(headers['content-length']);
  if (length > maxSize + (multipart ? MULTIPART_OVERHEAD : 0)) throw fileTooLarge(where, maxSize);
  const stream = requestStream(request);
  if (stream.readableEnded && request.body !== undefined) {
    // A body parser of the app (JSON, a form) read it into an object: the file's bytes are gone.
    throw fileError(
      'MR_UNSUPPORTED_MEDIA_TYPE',
      where,
      `${type ? `${article(type)} ${type} body` : 'a body without a type'} is parsed by the app before the route: send the file as multipart/form-data, or ` +
        `as its own type`,
    );
  }
  // The client left while the route was still reading the document (nothing would ever end the reading).
  if (stream.destroyed && !stream.readableEnded) throw interrupted(where);
  if (!multipart) {
    const name = fileNameOf(headers['content-disposition']);
    const complete = async () => {
      if ((stream as Partial<IncomingMessage>).complete === false) throw interrupted(where);
    };
    // Not destroyed when the reading stops: that would close the connection before the error is answered.
    const bytes = invalidOnError(stream.iterator({ destroyOnReturn: false }), () => interrupted(where));
    return {
      bytes: timed(bytes, bodyTimeout, () => timedOut(where)),
      name: name === undefined ? undefined : sanitizeFileName(name),
      declaredType: type || undefined,
      complete,
      stop: () => stream.resume(),
    };
  }
  const limits = { bytes: maxSize + MULTIPART_OVERHEAD, tooLarge: () => fileTooLarge(where, maxSize), timeout: bodyTimeout, timedOut: () => timedOut(where) };
  return readMultipart(stream, headers, limits, where);
}

/** 408, closing the connection: the client fell silent in the middle of its body. */
function timedOut(where: string): ModelRoutesException {
  return fileError('MR_REQUEST_TIMEOUT', where, "the upload stopped arriving (no bytes within the field's bodyTimeout)", { Connection: 'close' });
}

function interrupted(where: string): ModelRoutesException {
  return fileError('MR_INVALID_FILE', where, 'the upload was interrupted before its end');
}

/**
 * The request's body as a stream: the request itself, or a body a parser has already read
 * (`express.raw()`, `express.text()`, Fastify's own `text/plain` parser, within their limits).
 */
function requestStream(request: UploadRequest): Readable {
  if (Buffer.isBuffer(request.body)) return Readable.from([request.body]);
  if (typeof request.body === 'string') return Readable.from([Buffer.from(request.body)]);
  return (request.raw ?? (request as unknown as IncomingMessage)) as Readable;
}

/**
 * Reads a multipart body through busboy. Every byte of it counts against `limits.bytes` (the field's
 * `maxSize` and the allowance for the framing): a preamble before the first boundary or an
 * epilogue after the last one is no way around the field's limit.
 */
function readMultipart(stream: Readable, headers: UploadRequest['headers'], limits: MultipartLimits, where: string): Promise<UploadSource> {
  const invalid = (message: string) => fileError('MR_INVALID_FILE', where, message);
  const malformed = (error: Error) => invalid(`the multipart body is malformed (${error.message})`);
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      // File names as browsers send them: UTF-8.
      parser = busboy({ headers: headers as Record<string, string>, defParamCharset: 'utf8', limits: { files: 1, fields: 20, parts: 21, fieldSize: 4096 } });
    } catch {
      reject(invalid('the multipart body has no boundary'));
      return;
    }
    let file: Readable | undefined;
    let failed = false;
    let received = 0;
    let settle: { resolve: () => void; reject: (error: unknown) => void };
    const complete = new Promise<void>((resolveComplete, rejectComplete) => (settle = { resolve: resolveComplete, reject: rejectComplete }));
    complete.catch(() => undefined); // observed by the caller once the file is read
    const stop = () => {
      stream.unpipe(parser);
      stream.resume();
    };
    const fail = (error: ModelRoutesException) => {
      if (failed) return;
      failed = true;
      clearTimeout(waiting);
      stop();
      // A file still being read ends with the failure (nothing else would end it once the request stops).
      if (file && !file.readableEnded) file.destroy(error);
      if (file) settle.reject(error);
      else reject(error);
    };
    // The client's silence before the file part begins (after it, the reads of the file and `complete` are timed).
    const waiting = setTimeout(() => fail(limits.timedOut()), limits.timeout).unref();
    parser.on('file', (_name, part, info) => {
      clearTimeout(waiting);
      file = part;
      // Listened to at once: an error before the caller reads (a body cut short, in one piece) would otherwise crash the process.
      part.on('error', () => undefined);
      const name = info.filename ? sanitizeFileName(info.filename) : undefined;
      const bytes = timed(invalidOnError(part.iterator({ destroyOnReturn: false }), malformed), limits.timeout, limits.timedOut);
      const whole = () =>
        within(complete, limits.timeout, limits.timedOut).catch((error: ModelRoutesException) => {
          fail(error);
          throw error;
        });
      resolve({ bytes, name, declaredType: info.mimeType, complete: whole, stop });
    });
    parser.on('filesLimit', () => fail(invalid('send one file per request')));
    parser.on('partsLimit', () => fail(invalid('too many parts')));
    parser.on('fieldsLimit', () => fail(invalid('too many fields')));
    parser.on('error', (error: Error) => fail(malformed(error)));
    parser.on('close', () => {
      clearTimeout(waiting);
      if (file) settle.resolve();
      else reject(invalid('the multipart body has no file part'));
    });
    stream.on('error', () => fail(interrupted(where)));
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bytes) fail(limits.tooLarge());
    });
    stream.pipe(parser);
  });
}

/** The bytes of `source`, any failure of which is `failure(error)` (unless it is already the library's). */
async function* invalidOnError(source: AsyncIterable<Buffer>, failure: (error: Error) => ModelRoutesException): AsyncGenerator<Buffer> {
  try {
    yield* source;
  } catch (error) {
    throw error instanceof ModelRoutesException ? error : failure(error as Error);
  }
}

/** The bytes of `source`, each awaited at most `ms` milliseconds: past it, `timeout()` is thrown. */
async function* timed(source: AsyncIterable<Buffer>, ms: number, timeout: () => ModelRoutesException): AsyncGenerator<Buffer> {
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    const next = await within(iterator.next(), ms, timeout);
    if (next.done) return;
    yield next.value;
  }
}

/** `promise`, or `timeout()` thrown once `ms` milliseconds pass before it settles. */
async function within<T>(promise: Promise<T>, ms: number, timeout: () => ModelRoutesException): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(timeout()), ms).unref()));
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
