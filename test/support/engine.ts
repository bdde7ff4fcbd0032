import { startEngine, type Engine } from '../../scripts/mongo-engine.js';

export interface TestDatabase {
  readonly engine: Engine;
  readonly uri: string;
  readonly dbName: string;
}

let counter = 0;

/**
 * Starts an engine for this test file (or uses MONGODB_URI) and hands out a fresh database
 * name per call, so specs never see each other's data. The engine stops after the file.
 */
export function useEngine(): { get(): Engine; dbName(label?: string): string } {
  let engine: Engine | undefined;
  beforeAll(async () => {
    engine = await startEngine({ log: () => undefined });
    // Lets a spec skip one assertion where FerretDB is known to differ from MongoDB.
    process.env.MODEL_ROUTES_ENGINE_KIND = engine.kind;
  });
  afterAll(async () => {
    await engine?.stop();
  });
  return {
    get() {
      if (!engine) throw new Error('useEngine(): the engine is started in beforeAll');
      return engine;
    },
    dbName(label = 'db') {
      const safe = label.replace(/[^a-z0-9]+/gi, '_').slice(0, 24);
      return `mr_${safe}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
    },
  };
}

/** `true` when this file runs on FerretDB, for the few assertions where it differs from MongoDB. */
export function isFerretDb(): boolean {
  return process.env.MODEL_ROUTES_ENGINE_KIND === 'ferretdb';
}
