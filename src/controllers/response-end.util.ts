import type { ServerResponse } from 'node:http';
import type { HttpResponse } from '../call/http-response.util.js';

/**
 * Calls `then` once when the response is over: answered, or its connection closed (Node emits
 * `close` on a response in both cases). Express's response is Node's; Fastify's reply holds it as `raw`.
 */
export function endOfResponse(response: HttpResponse, then: () => void): void {
  const raw = ((response as { raw?: ServerResponse }).raw ?? response) as Partial<ServerResponse>;
  if (typeof raw.once !== 'function') return;
  if (raw.closed) then();
  else raw.once('close', then);
}
