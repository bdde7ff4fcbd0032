/** A response of Express (`res.header`, `res.setHeader`) or Fastify (`reply.header`). */
export interface HttpResponse {
  header?: (name: string, value: string) => unknown;
  setHeader?: (name: string, value: string) => unknown;
}

/** Sets a response header on Express and Fastify alike. */
export function setHeader(response: HttpResponse, name: string, value: string): void {
  if (typeof response.header === 'function') response.header(name, value);
  else response.setHeader?.(name, value);
}
