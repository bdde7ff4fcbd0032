import { parseEntityTags, type WritePrecondition } from './entity-tag.js';

/**
 * How a generated route takes part in conditional requests: `read` answers a document's `ETag`
 * and honours `If-None-Match` (304); `tag` only answers it (a create); `write` honours `If-Match`
 * (and `requireIfMatch`) and `If-None-Match` (412) for the document its path names, and answers
 * the new `ETag`. Applied by `serveRoute`, with the request's `RouteCall`.
 */
export type ConditionalKind = 'read' | 'tag' | 'write';

/** The request, as far as conditional requests read it (Express and Fastify alike). */
export interface ConditionalRequest {
  headers: Record<string, string | string[] | undefined>;
}

/**
 * A write request's conditions, parsed: its `If-Match` and its `If-None-Match`. A route that
 * checks them before the write (an upload, before its body is read) and the write itself read the same.
 */
export function writePreconditionOf(request: ConditionalRequest): WritePrecondition {
  const ifMatch = request.headers['if-match'];
  const ifNoneMatch = request.headers['if-none-match'];
  const precondition: WritePrecondition = {};
  if (ifMatch !== undefined) precondition.ifMatch = parseEntityTags(ifMatch);
  if (ifNoneMatch !== undefined) precondition.ifNoneMatch = parseEntityTags(ifNoneMatch);
  return precondition;
}

/** The `If-Match` and `If-None-Match` of a generated write route's request, for the document its path names. */
export interface RequestPrecondition extends WritePrecondition {
  /** The resource whose document the route writes (`Company`). */
  resource: string;
  /** The identifier in the path (`:company_id`), as sent. */
  id: string;
  /** Set by the first write it applied to: later writes of the same request are not conditional. */
  used: boolean;
}
