/** What a generated route's entry guard reads from `forRoot` to serialize: how to find a request's groups. */
export interface SerializationSettings {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request of Express or Fastify, typed by the application's own callback
  groups?: (request: any) => string[] | undefined;
}
