import { startEngine, type Engine } from '../../scripts/mongo-engine.js';

let counter = 0;

/** The engine of one test file. */
export interface TestEngine {
  get(): Engine;
  /** A database name no other spec uses. */
  dbName(label?: string): string;
  /** Runs `close` before the engine stops (Jest runs afterAll hooks in declaration order). */
  beforeStop(close: () => Promise<void>): void;
}

/**
 * Starts an engine for this test file (or uses MONGODB_URI) and hands out a fresh database
 * name per call, so specs never see each other's data. Apps registered with beforeStop()
 * are closed first, then the engine stops: a driver never waits on a server that is gone.
 */
export function useEngine(): TestEngine {
  let engine: Engine | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    engine = await startEngine({ log: () => undefined });
    // Lets a spec skip one assertion where FerretDB is known to differ from MongoDB.
    process.env.MODEL_ROUTES_ENGINE_KIND = engine.kind;
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
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
    beforeStop(close) {
      closers.push(close);
    },
  };
}

/** `true` when this file runs on FerretDB, for the few assertions where it differs from MongoDB. */
export function isFerretDb(): boolean {
  return process.env.MODEL_ROUTES_ENGINE_KIND === 'ferretdb';
}
