/** The parts of a V8 CPU profile (`node --cpu-prof`) that the shares are computed from. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  /** The node each sample was taken in (its self time). */
  samples: number[];
  /** Microseconds between each sample and the one before it. */
  timeDeltas?: number[];
}

/** Where a sample's time went. */
export type Owner = 'idle' | 'library' | 'garbage collector' | 'node core' | 'other' | `package ${string}`;

/**
 * Who owns the function a sample was taken in: the library (its compiled `src/`), an npm package
 * (by name, scoped or not), Node itself (`node:` modules and native code), the garbage collector,
 * or the idle loop (the process waiting, mostly on the database).
 */
export function ownerOf(frame: { functionName: string; url: string }, librarySource: string): Owner {
  if (frame.functionName === '(idle)') return 'idle';
  if (frame.functionName === '(garbage collector)') return 'garbage collector';
  const url = frame.url;
  // The innermost package: `node_modules/mongoose/node_modules/bson/...` is bson's code.
  const inPackage = [...url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)(?=\/)/g)].at(-1);
  if (inPackage) return `package ${inPackage[1]}`;
  if (url.includes(librarySource)) return 'library';
  if (url === '' || url.startsWith('node:')) return 'node core';
  return 'other';
}

/** One line of the profile's summary: an owner's samples and its share of the busy ones. */
export interface Share {
  owner: Owner;
  samples: number;
  /** Of the samples in which the process was not idle. */
  busyShare: number;
}

/**
 * The samples of a profile by owner, most first, with each owner's share of the busy samples
 * (those not idle: the share of the process's own CPU time). `idle` is listed with a share of 0.
 * `busyMicros`: the time the busy samples stand for (from `timeDeltas`).
 */
export function profileShares(profile: CpuProfile, librarySource: string): { total: number; busy: number; busyMicros: number; shares: Share[] } {
  const owners = new Map(profile.nodes.map((node) => [node.id, ownerOf(node.callFrame, librarySource)]));
  const counts = new Map<Owner, number>();
  let busyMicros = 0;
  profile.samples.forEach((id, index) => {
    const owner = owners.get(id) ?? 'other';
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
    // A sample stands for the time since the one before it.
    if (owner !== 'idle') busyMicros += profile.timeDeltas?.[index] ?? 0;
  });
  const total = profile.samples.length;
  const busy = total - (counts.get('idle') ?? 0);
  const shares = [...counts]
    .map(([owner, samples]) => ({ owner, samples, busyShare: owner === 'idle' || busy === 0 ? 0 : samples / busy }))
    .sort((a, b) => b.samples - a.samples);
  return { total, busy, busyMicros, shares };
}

/** One function of a profile, by its self time: its name and where it lives (the file's last part, or its owner). */
export interface Frame {
  name: string;
  /** Of the busy samples. */
  busyShare: number;
  /** The time its samples stand for, per request (µs), given the requests served while sampling. */
  microsPerRequest: number;
}

/**
 * The functions with the most self time among the busy samples, most first: `name (file)` for code
 * with a file, the bare name for Node's native frames (`writev`, `(program)`). `only`: among the
 * functions it keeps (the library's), their shares still of every busy sample.
 */
export function topFrames(profile: CpuProfile, requests: number, count = 6, only?: (frame: { functionName: string; url: string }) => boolean): Frame[] {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const micros = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, index) => {
    const frame = frames.get(id);
    if (!frame || frame.functionName === '(idle)') return;
    if (only && !only(frame)) {
      busy += profile.timeDeltas?.[index] ?? 0;
      return;
    }
    const file = frame.url.split('/').at(-1);
    const name = `${frame.functionName || '(anonymous)'}${file ? ` (${file})` : ''}`;
    const delta = profile.timeDeltas?.[index] ?? 0;
    micros.set(name, (micros.get(name) ?? 0) + delta);
    busy += delta;
  });
  return [...micros]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, time]) => ({ name, busyShare: busy === 0 ? 0 : time / busy, microsPerRequest: requests === 0 ? 0 : time / requests }));
}

/** The frames of Node's promise hooks, which an active `AsyncLocalStorage` turns on for every promise on Node 20 and 22. */
const PROMISE_HOOK_FRAMES = new Set([
  'promiseInitHook',
  'promiseInitHookWithDestroyTracking',
  'trackPromise',
  'promiseBeforeHook',
  'promiseAfterHook',
  'promiseResolveHook',
  'lookupPublicResource',
  'emitInitNative',
  'emitInitScript',
]);

/** The time per request (µs) spent in Node's promise hooks (see `PROMISE_HOOK_FRAMES`). */
export function promiseHookMicros(profile: CpuProfile, requests: number): number {
  const hooks = new Set(profile.nodes.filter((node) => PROMISE_HOOK_FRAMES.has(node.callFrame.functionName)).map((node) => node.id));
  let time = 0;
  profile.samples.forEach((id, index) => {
    if (hooks.has(id)) time += profile.timeDeltas?.[index] ?? 0;
  });
  return requests === 0 ? 0 : time / requests;
}
