import { createCipheriv, createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';

/** What `npm run bench:files` sends and receives: seeded file bodies, streamed both ways, and the server's memory. */

const CHUNK = 64 * 1024;
/** A transfer idle this long fails the run (a server that hangs must not hang CI). */
const TIMEOUT_MS = 60_000;

/** A PNG signature and a valid IHDR chunk (1024 × 1024, RGBA): what the library's sniffer reads as `image/png`. */
function pngHeader(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1024, 0);
  ihdr.writeUInt32BE(1024, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const type = Buffer.from('IHDR', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, ihdr])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), length, type, ihdr, crc]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * The bytes of the file `name` of a run: a PNG header, then AES-128-CTR's key stream keyed by the
 * seed and the name (random-looking, incompressible, the same for the same seed), `size` bytes in
 * all, made `CHUNK` at a time: never the whole file in memory.
 */
export function* fileBytes(seed: string, name: string, size: number): Generator<Buffer> {
  const key = createHash('sha256').update(`${seed}:${name}`).digest().subarray(0, 16);
  const cipher = createCipheriv('aes-128-ctr', key, Buffer.alloc(16));
  const zeros = Buffer.alloc(CHUNK);
  let sent = 0;
  while (sent < size) {
    const chunk = cipher.update(zeros.subarray(0, Math.min(CHUNK, size - sent)));
    if (sent === 0) pngHeader().copy(chunk);
    sent += chunk.length;
    yield chunk;
  }
}

/** The SHA-256 of the file `name` (hex), as `fileBytes` makes it. */
export function fileHash(seed: string, name: string, size: number): string {
  const hash = createHash('sha256');
  for (const chunk of fileBytes(seed, name, size)) hash.update(chunk);
  return hash.digest('hex');
}

export interface Transfer {
  status: number;
  bytes: number;
  ms: number;
  sha256: string;
  body: string;
}

/**
 * One request: `body` streamed (with its `Content-Length`), the answer consumed and hashed as it
 * arrives (a JSON answer is kept as text, a file is counted, not kept).
 */
export function transfer(port: number, method: string, path: string, body?: { chunks: Iterable<Buffer>; length: number; type: string }): Promise<Transfer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const headers = body ? { 'Content-Type': body.type, 'Content-Length': String(body.length) } : undefined;
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (response: IncomingMessage) => {
      const hash = createHash('sha256');
      const json = /json/.test(String(response.headers['content-type']));
      let bytes = 0;
      let text = '';
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
        if (json || (response.statusCode ?? 500) >= 400) text += chunk.toString('utf8');
      });
      response.once('end', () => resolve({ status: response.statusCode ?? 0, bytes, ms: performance.now() - started, sha256: hash.digest('hex'), body: text }));
      response.once('error', reject);
    });
    request.once('error', reject);
    request.setTimeout(TIMEOUT_MS, () => request.destroy(new Error(`${method} ${path}: no answer in ${TIMEOUT_MS / 1000} s`)));
    if (body) Readable.from(body.chunks, { objectMode: false }).pipe(request);
    else request.end();
  });
}

/** A process's resident memory (KiB) from `/proc/<pid>/status`: `VmRSS` now, `VmHWM` its peak. */
function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** What a batch of transfers cost the server's process. */
export interface ProcessCost {
  /** The highest `VmRSS` sampled (every `intervalMs`, and at the end) minus `VmRSS` before, MiB. */
  rssGrowth: number;
  /**
   * `VmHWM` at the end minus `VmRSS` before, MiB: the kernel's peak. It is updated lazily (when
   * memory is unmapped), so it can miss a peak that the sampling saw, and the other way round.
   */
  hwmGrowth: number;
  /** CPU time of the process (user + system, `/proc/<pid>/stat`), ms. */
  cpuMs: number;
}

/** User + system CPU time of a process, ms (`/proc/<pid>/stat` counts clock ticks, 100 per second on Linux). */
export function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Watches a process while `work` runs: resets its `VmHWM` to its current RSS (writing `5` to
 * `/proc/<pid>/clear_refs`, Linux ≥ 4.0), samples `VmRSS` every `intervalMs`, and reads `VmHWM`
 * and its CPU time at the end.
 */
export async function watchProcess<T>(pid: number, work: () => Promise<T>, intervalMs = 20): Promise<{ result: T; cost: ProcessCost }> {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const before = memoryOf(pid).rss;
  const cpu = cpuOf(pid);
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, memoryOf(pid).rss)), intervalMs);
  try {
    const result = await work();
    const end = memoryOf(pid);
    peak = Math.max(peak, end.rss);
    return { result, cost: { rssGrowth: (peak - before) / 1024, hwmGrowth: (end.hwm - before) / 1024, cpuMs: cpuOf(pid) - cpu } };
  } finally {
    clearInterval(timer);
  }
}
