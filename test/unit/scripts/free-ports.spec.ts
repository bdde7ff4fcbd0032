import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePorts } from '../../../scripts/mongo-engine.js';

/** Registers this file's tests; the suite file above it runs them (test/support/suite.ts). */
export function freePortsSpec(): void {
  /**
   * The engine's ports are below the kernel's ephemeral range. A client's end of a connection takes
   * its port from that range; a connection to a port of it where nothing listens (an engine a test
   * stopped) can be given that port as its own and connect to itself: then the driver waited, for
   * ever, on its own hello, and the app's connection never came back up after the engine did.
   * (Measured on this machine's Linux: repeated connections to a free even port of the range connected
   * to themselves after 3,905 and 17,161 attempts.)
   */
  const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

  it('gives distinct free ports below the ephemeral range', async () => {
    const ports = await freePorts(3);
    expect(new Set(ports).size).toBe(3);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10000);
      expect(port).toBeLessThan(ephemeralFrom);
      // Free: a server can listen on it.
      const server = createServer();
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('skips a port that is taken', async () => {
    const [taken] = await freePorts(1);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      const ports = await freePorts(2);
      expect(ports).not.toContain(taken);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
}
