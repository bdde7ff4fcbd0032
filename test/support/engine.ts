import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cacheDir, startEngine, type Engine, type EngineChoice, type EngineKind } from '../../scripts/mongo-engine.js';

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
 * `choice` picks a FerretDB backend over `MODEL_ROUTES_ENGINE` (MONGODB_URI still wins).
 */
export function useEngine(choice?: EngineChoice): TestEngine {
  let engine: Engine | undefined;
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    engine = await startEngine({ log: () => undefined, engine: choice });
    // The skips were decided when Jest collected the tests, from the environment alone:
    // an engine of another kind would run the tests of the wrong engine.
    if (engine.kind !== expectedEngineKind()) {
      throw new Error(
        `test/support/engine.ts expected a ${expectedEngineKind()} engine, but scripts/mongo-engine.ts started ${engine.description}: ` +
          'the engine-specific tests of this file were chosen for the wrong engine',
      );
    }
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

/**
 * The engine this run uses, known synchronously (when Jest collects the tests, before any
 * engine starts), resolved in the order of scripts/mongo-engine.ts: MONGODB_URI when set; else
 * FerretDB when its binary is there or can be built (FERRETDB_BIN, the cache, or `go`); else
 * mongodb-memory-server. useEngine() fails the file if the engine it starts is of another kind.
 */
export function expectedEngineKind(): EngineKind {
  if (process.env.MONGODB_URI) return 'external';
  expectedLocal ??= process.env.FERRETDB_BIN || cachedFerretDb() || hasGo() ? 'ferretdb' : 'mongodb-memory-server';
  return expectedLocal;
}

let expectedLocal: EngineKind | undefined;

function cachedFerretDb(): boolean {
  try {
    return readdirSync(cacheDir()).some((name) => name.startsWith('ferretdb-v'));
  } catch {
    return false;
  }
}

function hasGo(): boolean {
  try {
    execFileSync('sh', ['-c', 'command -v go'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** `true` when this run uses FerretDB; usable at collection time. Prefer itOnMongoDb / itOnFerretDb. */
export function isFerretDb(): boolean {
  return expectedEngineKind() === 'ferretdb';
}

type TestFn = () => Promise<unknown>;

/**
 * A test of MongoDB's behaviour where FerretDB v1 differs: run on MONGODB_URI, and on FerretDB
 * reported by Jest as skipped, with `reason` in its name. Pair it with an itOnFerretDb test that
 * pins FerretDB's own answer.
 */
export function itOnMongoDb(reason: string, name: string, fn: TestFn, timeout?: number): void {
  if (isFerretDb()) it.skip(`${name} [skipped on FerretDB: ${reason}]`, fn, timeout);
  else it(name, fn, timeout);
}

/** The FerretDB v1 side of an engine difference: skipped, with `reason` in its name, on any other engine. */
export function itOnFerretDb(reason: string, name: string, fn: TestFn, timeout?: number): void {
  if (isFerretDb()) it(name, fn, timeout);
  else it.skip(`${name} [FerretDB only: ${reason}]`, fn, timeout);
}
