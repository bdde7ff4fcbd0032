/** What a generated route's entry guard reads from `forRoot` to serialize: how to find a request's groups. */
export interface SerializationSettings {
  groups?: (request: any) => string[] | undefined;
}
