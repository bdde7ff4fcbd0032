/** The last resort of `auto`: `mongodb-memory-server`, an optional package that is not a dependency. */
import type { Engine } from '../../src/embedded/engine/types.js';

/** A real `mongod` from `mongodb-memory-server`, when that package is installed; else `undefined`. */
export async function startMemoryServer(): Promise<Engine | undefined> {
  const moduleName = 'mongodb-memory-server';
  let mod: { MongoMemoryServer: { create(): Promise<{ getUri(): string; stop(): Promise<unknown> }> } };
  try {
    mod = await import(moduleName);
  } catch {
    return undefined;
  }
  const server = await mod.MongoMemoryServer.create();
  return {
    kind: 'mongodb-memory-server',
    uri: server.getUri(),
    description: `mongodb-memory-server at ${server.getUri()}`,
    stop: async () => void (await server.stop()),
  };
}
