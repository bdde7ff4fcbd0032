import type { IncomingMessage } from 'node:http';

/**
 * The key of Fastify's route config (`@RouteConfig()` of `@nestjs/platform-fastify`, which this
 * package does not depend on) that marks an upload route.
 */
const FASTIFY_ROUTE_CONFIG = '__fastify_route_config__';
const UPLOAD = 'modelRoutesUpload';

interface FastifyLike {
  hasContentTypeParser(type: string): boolean;
  addContentTypeParser(
    type: string,
    parser: (request: FastifyRequestLike, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => void,
  ): void;
}

interface FastifyRequestLike {
  headers: Record<string, string | string[] | undefined>;
  routeOptions?: { config?: Record<string, unknown> };
}

/** Marks a handler as an upload route in Fastify's route config (Express needs nothing). */
export function markUploadRoute(handler: Function): void {
  setFastifyRouteConfig(handler, UPLOAD, true);
}

/** Adds `key: value` to a handler's Fastify route config (what `request.routeOptions.config` holds), keeping what it has. */
export function setFastifyRouteConfig(handler: Function, key: string, value: unknown): void {
  const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG, handler) as Record<string, unknown> | undefined) ?? {};
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG, Object.assign({}, config, { [key]: value }), handler);
}

const registered = new WeakSet<object>();

/**
 * Lets the upload routes read their body as a stream on Fastify, which otherwise refuses every
 * content type it has no parser for (`image/png`, `multipart/form-data`) with a 415: a catch-all
 * parser that leaves an upload route's body unread (its handler streams the request), and answers
 * any other route as Fastify would have. Registered once per Fastify instance, and not where the
 * app has a catch-all parser of its own; `@fastify/multipart`, if the app registered it, keeps
 * `multipart/form-data` (it leaves the body unread too).
 */
export function registerFastifyUploads(instance: FastifyLike): void {
  if (registered.has(instance) || instance.hasContentTypeParser('*')) return;
  registered.add(instance);
  instance.addContentTypeParser('*', (request, _payload, done) => {
    if (request.routeOptions?.config?.[UPLOAD]) {
      done(null);
      return;
    }
    const type = String(request.headers['content-type'] ?? '');
    done(Object.assign(new Error(`Unsupported Media Type: ${type}`), { name: 'FastifyError', code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }));
  });
}
