import { ModelRoutesException } from '../errors/model-routes.exception.js';

/** `application/json`, with or without parameters: what the JSON body parsers of Express and Fastify read. */
const JSON_TYPE = /^application\/json\s*(?:;|$)/i;

/**
 * Refuses, with a 415 `MR_UNSUPPORTED_MEDIA_TYPE`, a request to a body-taking generated route whose
 * body is not JSON (`text/plain`, a form, multipart): the body parsers leave such a body unread, so
 * a search would otherwise answer every document and a write would see no fields. A request
 * without a body (no `Content-Length` and no `Transfer-Encoding`, or a length of 0) passes.
 */
export function assertJsonBody(headers: Record<string, string | string[] | undefined>): void {
  const length = headers['content-length'];
  const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  const type = String(headers['content-type'] ?? '');
  if (hasBody && !JSON_TYPE.test(type)) {
    const message = `The request body must be JSON (Content-Type: application/json), not '${type || 'none'}'`;
    throw new ModelRoutesException('MR_UNSUPPORTED_MEDIA_TYPE', message, [{ path: 'body', message }]);
  }
}
