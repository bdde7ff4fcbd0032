import type { IncomingMessage } from 'node:http';
import { Catch, Logger, Optional, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { ApplicationConfig, BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import { ModelRoutesExplorer } from '../explorer/model-routes.explorer.js';
import { servingOf, requestedVersion } from '../versioning/served-routes.js';
import { AllowedMethods } from './allowed-methods.util.js';
import { mapError, methodNotAllowed } from '../errors/error-response.mapper.js';
import { closeLingering } from './lingering-close.util.js';
import { ModelRoutesException, NotModifiedException } from '../errors/model-routes.exception.js';

interface RequestLike {
  method?: string;
  originalUrl?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** Fastify's request holds Node's as `raw`; Express's is Node's. */
  raw?: RequestLike;
  readableEnded?: boolean;
}

interface ExpressResponse {
  status(code: number): unknown;
  setHeader(name: string, value: string | number): unknown;
  end(text: string): unknown;
}

/**
 * Sends an error body on Express without the weak `ETag` its `send()` adds to every body: an error
 * is not a representation of the resource, and a client must not store it as one (nor send its
 * tag back in `If-Match`). An `ETag` set on purpose (the current one, on a 412) is kept.
 */
function replyWithoutEtag(response: ExpressResponse, body: object & { statusCode: number }): void {
  const text = JSON.stringify(body);
  response.status(body.statusCode);
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.end(text);
}

/** Which failures the filter shapes: every one it sees (`'app'`), or those of requests to a route table path (`'routes'`). */
export type ErrorFilterScope = 'app' | 'routes';

/**
 * Gives every failure of a generated route the one error shape
 * `{ statusCode, error, code, message, details? }`. Every failure answered with a 5xx (a 503 too,
 * except the admission limit's `MR_OVERLOADED`)
 * is logged here with its cause (the stack, and the chain of `cause`s); unexpected errors reach
 * the client only as a generic 500. A request for a path of the
 * route table with a method it does not serve is a 405 with an `Allow` header.
 *
 * The module installs it app-wide, scoped to the paths of the route table unless
 * `globalErrorFilter: true`: a failure before a route is chosen (malformed JSON, a body too
 * large, a method the path does not serve) has the shape there, and any other request is
 * answered by Nest's own filter, as if the library were not there. Used by hand
 * (`app.useGlobalFilters(...)`), it shapes every failure.
 *
 * @publicApi
 */
@Catch()
export class ModelRoutesExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ModelRoutes');
  private allowed?: AllowedMethods;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Optional() private readonly explorer?: ModelRoutesExplorer,
    @Optional() private readonly config?: ApplicationConfig,
    /** 'app' (the default, and the generated controllers' own filter): every failure it sees; 'routes': see above. */
    @Optional() private readonly scope: ErrorFilterScope = 'app',
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<RequestLike>();
    // The methods of the request's path in the route table, asked only where they decide something.
    let served: string[] | undefined;
    const path = (request.originalUrl ?? request.url ?? '').split('?')[0];
    // Of the version the request names (header, media type or custom versioning): another version's methods are not allowed to it.
    const methods = () => (served ??= this.allowedMethods().of(path, requestedVersion(request, this.config?.getVersioning())));
    if (this.scope === 'routes' && !this.allowedMethods().has(path)) {
      new BaseExceptionFilter(this.adapterHost.httpAdapter).catch(exception, host);
      return;
    }
    const response = http.getResponse();
    const { httpAdapter } = this.adapterHost;
    if (exception instanceof NotModifiedException) {
      httpAdapter.setHeader(response, 'ETag', exception.etag);
      httpAdapter.reply(response, undefined, 304);
      return;
    }
    let { body, unexpected } = mapError(exception);
    if (exception instanceof ModelRoutesException && exception.headers) {
      for (const [name, value] of Object.entries(exception.headers)) httpAdapter.setHeader(response, name, value);
    }
    if (body.code === 'MR_ROUTE_NOT_FOUND') {
      if (methods().length) {
        ({ body, unexpected } = methodNotAllowed(request.method ?? '', methods()));
        httpAdapter.setHeader(response, 'Allow', methods().join(', '));
      }
    }
    // Every 5xx (a 503 too: the database is down, or the engine dropped the connection) says why in
    // the log; the client only gets the code.
    // A request shed by the admission limit (503 MR_OVERLOADED) is not logged: under overload that would be thousands of lines saying one thing.
    if (unexpected || (body.statusCode >= 500 && body.code !== 'MR_OVERLOADED'))
      this.logger.error(`${request.method ?? ''} ${request.originalUrl ?? request.url ?? ''} answered ${body.statusCode} ${body.code}: ${causeOf(exception)}`);
    if (stopReading(request)) {
      httpAdapter.setHeader(response, 'Connection', 'close');
      closeLingering((request.raw ?? request) as IncomingMessage);
    }
    if (httpAdapter.getType() === 'express') replyWithoutEtag(response as ExpressResponse, body);
    else httpAdapter.reply(response, body, body.statusCode);
  }

  private allowedMethods(): AllowedMethods {
    // Built on first use: the global prefix and the versioning are set after the module is defined.
    return (this.allowed ??= new AllowedMethods(this.explorer?.routes() ?? [], servingOf(this.config)));
  }
}

/**
 * Whether a request is refused before its body was read (an upload a guard, a missing document or
 * a stale `If-Match` refuses): its answer closes the connection. Node would otherwise read the
 * whole body to reach the next request on the connection; with `Connection: close` the answer is
 * sent, and what the client still sends is read and discarded for a bounded while before the
 * connection closes (`closeLingering`), so that the close does not reset the answer away.
 */
function stopReading(request: RequestLike): boolean {
  const raw = request.raw ?? request;
  const headers = raw.headers ?? {};
  const hasBody = Number(headers['content-length'] ?? 0) > 0 || headers['transfer-encoding'] !== undefined;
  return hasBody && raw.readableEnded === false;
}

/** The stack of what was thrown, and of each `cause` it carries (a driver error wrapped by the library), at most 5 deep. */
function causeOf(exception: unknown): string {
  const parts: string[] = [];
  let current: unknown = exception;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    parts.push(current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join('\nCaused by: ');
}
