import { ownerOf, profileShares, promiseHookMicros, topFrames, type CpuProfile } from '../../../bench/profile-shares.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function profileSharesSpec(): void {
  const LIBRARY = '/repo/dist-bench/src/';
  const frame = (functionName: string, url = '') => ({ functionName, url });

  describe('ownerOf', () => {
    it.each([
      [frame('(idle)'), 'idle'],
      [frame('(garbage collector)'), 'garbage collector'],
      [frame('(program)'), 'node core'],
      [frame('writev', 'node:internal/stream_base_commons'), 'node core'],
      [frame('search', 'file:///repo/dist-bench/src/repository/model-repository.js'), 'library'],
      [frame('find', 'file:///repo/node_modules/mongoose/lib/model.js'), 'package mongoose'],
      [frame('serialize', 'file:///repo/node_modules/@nestjs/core/router/router-proxy.js'), 'package @nestjs/core'],
      // A package's own node_modules: the innermost package owns the code.
      [frame('x', 'file:///repo/node_modules/mongoose/node_modules/bson/lib/bson.cjs'), 'package bson'],
      [frame('main', 'file:///repo/dist-bench/bench/servers/generated.js'), 'other'],
    ])('%j belongs to %s', (callFrame, owner) => {
      expect(ownerOf(callFrame, LIBRARY)).toBe(owner);
    });
  });

  describe('profileShares', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)') },
        { id: 2, callFrame: frame('search', 'file:///repo/dist-bench/src/repository/model-repository.js') },
        { id: 3, callFrame: frame('find', 'file:///repo/node_modules/mongoose/lib/model.js') },
        { id: 4, callFrame: frame('(garbage collector)') },
      ],
      samples: [1, 1, 1, 1, 2, 3, 3, 3, 4, 1],
      timeDeltas: [100, 100, 100, 100, 200, 200, 200, 200, 200, 100],
    };

    it('counts the samples by owner, most first, with shares of the busy samples (idle excluded)', () => {
      const { total, busy, busyMicros, shares } = profileShares(profile, LIBRARY);
      expect({ total, busy, busyMicros }).toEqual({ total: 10, busy: 5, busyMicros: 1000 });
      expect(shares).toEqual([
        { owner: 'idle', samples: 5, busyShare: 0 },
        { owner: 'package mongoose', samples: 3, busyShare: 0.6 },
        { owner: 'library', samples: 1, busyShare: 0.2 },
        { owner: 'garbage collector', samples: 1, busyShare: 0.2 },
      ]);
    });

    it('gives no share (not NaN) when the process was idle throughout', () => {
      const { busy, busyMicros, shares } = profileShares({ nodes: profile.nodes, samples: [1, 1], timeDeltas: [5, 5] }, LIBRARY);
      expect({ busy, busyMicros }).toEqual({ busy: 0, busyMicros: 0 });
      expect(shares).toEqual([{ owner: 'idle', samples: 2, busyShare: 0 }]);
    });
  });

  describe('topFrames and promiseHookMicros', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(idle)') },
        { id: 2, callFrame: frame('search', 'file:///repo/dist-bench/src/repository/document-search.js') },
        { id: 3, callFrame: frame('writev') },
        { id: 4, callFrame: frame('promiseInitHook', 'node:internal/async_hooks') },
        { id: 5, callFrame: frame('trackPromise', 'node:internal/async_hooks') },
      ],
      // Idle 100 µs; search 30; writev 50; the promise hooks 10 + 10.
      samples: [1, 2, 3, 4, 5, 3],
      timeDeltas: [100, 30, 25, 10, 10, 25],
    };

    it('lists the functions by self time, busy samples only, per request, with their file', () => {
      expect(topFrames(profile, 10, 2)).toEqual([
        { name: 'writev', busyShare: 50 / 100, microsPerRequest: 5 },
        { name: 'search (document-search.js)', busyShare: 30 / 100, microsPerRequest: 3 },
      ]);
      expect(topFrames(profile, 0, 1)).toEqual([{ name: 'writev', busyShare: 0.5, microsPerRequest: 0 }]);
      // Among some functions only (the library's), their shares still of every busy sample.
      expect(topFrames(profile, 10, 3, (frame) => frame.url.includes('/src/'))).toEqual([
        { name: 'search (document-search.js)', busyShare: 30 / 100, microsPerRequest: 3 },
      ]);
    });

    it("adds up the time of Node's promise hooks per request", () => {
      expect(promiseHookMicros(profile, 10)).toBe(2);
      expect(promiseHookMicros({ ...profile, samples: [1, 2, 3] }, 10)).toBe(0);
    });
  });
}
