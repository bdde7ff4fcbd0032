import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Readable } from 'node:stream';
import { matchesWeakly, parseEntityTags } from '../concurrency/entity-tag.js';
import { ModelRoutesException } from '../errors/model-routes.exception.js';
import { contentDisposition } from './file-name.util.js';
import type { FileFieldDefinition } from './file-options.js';

/** What a download serves: a stored file, or a variant of one. */
export interface Servable {
  name: string;
  contentType: string;
  size: number;
  sha256: string;
  uploadedAt: Date;
  open(range?: { start: number; end: number }): Readable;
}

/** The request, as a download reads it (Express and Fastify alike). */
export interface DownloadRequest {
  method: string;
  headers: Record<string, string | string[] | undefined>;
}

/** Express's response, or Fastify's reply: the download sends its answer itself. */
export type DownloadResponse = ServerResponse | FastifyReplyLike;

interface FastifyReplyLike {
  raw: ServerResponse;
  code(status: number): FastifyReplyLike;
  header(name: string, value: string): FastifyReplyLike;
  send(payload?: unknown): unknown;
  hijack(): unknown;
}

/**
 * Not run by the browser, whatever the file holds: a document opened from its URL gets no script,
 * no plugin, no form, and no access to the site's origin (a sandbox); an image shows as it is.
 */
const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox";

/**
 * Answers a download: `Content-Type` (the type read from the content at upload), `Content-Length`,
 * a strong `ETag` (the content's SHA-256), `Last-Modified`, the field's `Cache-Control`,
 * `Content-Disposition` (`inline` for the field's `inline` types, else `attachment`, with the
 * sanitised name), `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`.
 * `If-None-Match` (or `If-Modified-Since` without it) answers 304; one `Range` answers 206 (several
 * ranges, or a `Range` with a stale `If-Range`, the whole file); a range past the end is a 416;
 * HEAD answers the headers without opening the file.
 */
export function sendFile(file: Servable, field: FileFieldDefinition, request: DownloadRequest, response: DownloadResponse): void {
  const etag = `"${Buffer.from(file.sha256, 'hex').toString('base64url')}"`;
  const lastModified = file.uploadedAt.toUTCString();
  const headers: Record<string, string> = {
    ETag: etag,
    'Last-Modified': lastModified,
    'Cache-Control': field.cacheControl,
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  };
  if (notModified(request.headers, etag, file.uploadedAt)) return send(response, 304, headers);
  Object.assign(headers, {
    'Content-Type': file.contentType,
    'Content-Disposition': contentDisposition(field.inline.has(file.contentType) ? 'inline' : 'attachment', file.name),
  });
  const range = rangeOf(request.headers, etag, file.size);
  if (range === 'unsatisfiable') {
    const message = `The range ${String(request.headers.range)} starts past the end of the file (${file.size} bytes)`;
    throw new ModelRoutesException('MR_RANGE_NOT_SATISFIABLE', message, [{ path: 'range', message }], { 'Content-Range': `bytes */${file.size}` });
  }
  const status = range ? 206 : 200;
  if (range) headers['Content-Range'] = `bytes ${range.start}-${range.end - 1}/${file.size}`;
  headers['Content-Length'] = String(range ? range.end - range.start : file.size);
  send(response, status, headers, request.method === 'HEAD' ? undefined : file.open(range));
}

function notModified(headers: DownloadRequest['headers'], etag: string, uploadedAt: Date): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesWeakly(parseEntityTags(ifNoneMatch), etag);
  const since = Date.parse(String(headers['if-modified-since'] ?? ''));
  // HTTP dates have whole seconds.
  return !Number.isNaN(since) && Math.floor(uploadedAt.getTime() / 1000) * 1000 <= since;
}

/**
 * The one range of a `Range: bytes=...` header, as `[start, end)`; `undefined` for the whole file
 * (no header, several ranges, another unit, a syntax error, or an `If-Range` that is not the
 * current `ETag`); `'unsatisfiable'` when it starts past the end.
 */
export function rangeOf(headers: DownloadRequest['headers'], etag: string, size: number): { start: number; end: number } | 'unsatisfiable' | undefined {
  const header = headers.range;
  if (typeof header !== 'string') return undefined;
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size };
  }
  const start = Number(match[1]);
  const last = match[2] === '' ? size - 1 : Number(match[2]);
  if (start >= size) return 'unsatisfiable';
  if (last < start) return undefined;
  return { start, end: Math.min(last, size - 1) + 1 };
}

function send(response: DownloadResponse, status: number, headers: Record<string, string>, body?: Readable): void {
  if ('raw' in response) {
    if (!body && status !== 304) {
      // Fastify's HEAD route would answer `Content-Length: 0` for a reply without a body.
      response.hijack();
      response.raw.writeHead(status, headers).end();
      return;
    }
    response.code(status);
    for (const [name, value] of Object.entries(headers)) response.header(name, value);
    response.send(body);
    return;
  }
  response.statusCode = status;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  if (!body) {
    response.end();
    return;
  }
  // A failure mid-stream (or a client that leaves) ends the response and closes the file.
  pipeline(body, response, (error) => {
    if (error && !response.destroyed) response.destroy();
  });
}
