/** Free ports of 127.0.0.1 for the servers, and a probe that a server listens. */
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';

export function freePort(): Promise<number> {
  return freePorts(1).then(([port]) => port!);
}

/** Lowest port of the servers' range: above the well-known and most registered services' ports. */
const SERVER_PORTS_FROM = 10000;
let portProbe = 0;

/**
 * `count` distinct free ports of 127.0.0.1 (held together while they are picked), below the
 * kernel's ephemeral range (`ip_local_port_range`, 32768 and up by default), where `listen(0)` would
 * pick them. A client's own end of a connection takes its port from that range, and a connection
 * to a port of it on which nothing listens (an engine stopped by a test, in the seconds before it
 * is started again) can be given that very port as its own: the socket connects to itself (TCP
 * simultaneous open). The driver's monitor then waits, for ever, for the answer to a `hello` that
 * it reads back as its own request, and the connection never comes back up although the engine
 * does (seen about once in 18 outages of the soak). A server port outside the range cannot be
 * any client's. The first candidate depends on the process id, so that concurrent processes
 * (Jest workers) probe different ports; an occupied candidate is skipped.
 */
export async function freePorts(count: number): Promise<number[]> {
  const ephemeralFrom = ephemeralPortsFrom();
  const span = ephemeralFrom - SERVER_PORTS_FROM;
  if (span < 1000) return listenedPorts(count);
  const held: ReturnType<typeof createServer>[] = [];
  try {
    for (let attempt = 0; held.length < count && attempt < 500; attempt++) {
      const candidate = SERVER_PORTS_FROM + ((process.pid * 7919 + portProbe++ * 104729) % span);
      const server = await listenOn(candidate);
      if (server) held.push(server);
    }
    if (held.length < count) throw new Error(`no ${count} free ports between ${SERVER_PORTS_FROM} and ${ephemeralFrom}`);
    return held.map((server) => (server.address() as { port: number }).port);
  } finally {
    await Promise.all(held.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  }
}

/** The first port of the kernel's ephemeral range (32768 where it cannot be read). */
function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** A server listening on `port` of 127.0.0.1, or `undefined` when the port is taken. */
function listenOn(port: number): Promise<ReturnType<typeof createServer> | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** Ports the kernel picks (`listen(0)`): where no range below the ephemeral one is left. */
async function listenedPorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.unref();
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              resolve(typeof address === 'object' && address ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))));
  }
}

export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
