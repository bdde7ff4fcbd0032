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
