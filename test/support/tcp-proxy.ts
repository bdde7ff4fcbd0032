import { createServer, connect, type Socket } from 'node:net';

/** A TCP proxy in front of the engine that can stop answering without closing anything. */
export interface StallingProxy {
  /** The engine's URI, through the proxy. */
  readonly uri: string;
  /** From now on nothing reaches the client: connections stay open, bytes are dropped, new ones are accepted and left waiting. */
  stall(): void;
  /** Drops the stalled connections (the driver reconnects) and forwards again. */
  resume(): void;
  close(): Promise<void>;
}

/**
 * A server that stops answering while its connections stay open (a frozen process, a network
 * partition): what a stopped engine cannot show, since its closed port fails each request at once.
 * Real bytes of the real engine pass through it; nothing of the driver is replaced.
 */
export async function startStallingProxy(target: string): Promise<StallingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (stalled) return void client.on('data', () => undefined);
    const upstream = connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk) => {
      if (!stalled) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!stalled) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: proxyPort } = server.address() as { port: number };
  return {
    uri: `mongodb://127.0.0.1:${proxyPort}/?directConnection=true`,
    stall() {
      stalled = true;
    },
    resume() {
      for (const socket of sockets) socket.destroy();
      stalled = false;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
