import net from 'node:net';
import type { TestGateway } from './test-gateway';

export interface TcpProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  /**
   * An outage: every open connection is cut at once and new ones are refused
   * for `ms`, as when a database restarts or a Redis node fails over.
   */
  outage(ms: number): Promise<void>;
  /**
   * An outage that lasts until `over` resolves, for a test that must see
   * something happen while the server is away, however slow the machine.
   */
  outageUntil(over: () => Promise<unknown>): Promise<void>;
  /**
   * The server stops, until `up()`: every open connection is cut and new ones
   * are refused (ECONNREFUSED: nothing listens on the port).
   */
  down(): Promise<void>;
  /** The server is back on the same port. */
  up(): Promise<void>;
  /**
   * The server goes silent, until `speak()`: connections stay open, but nothing
   * said on them arrives, and new ones are accepted and never answered, as
   * behind a network partition or a failover that moved the server's address.
   */
  silence(): void;
  /** What was held is delivered, and the connections carry on. */
  speak(): void;
  close(): Promise<void>;
}

/** A TCP forwarder in front of a real server, so that a test can take the server away from one process. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<net.Socket>();
  let refusing = false;
  let silent = false;
  const held: net.Socket[] = [];
  const server = net.createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    if (silent) {
      client.pause();
      held.push(client);
      return;
    }
    forward(client);
  });
  function forward(client: net.Socket) {
    const upstream = net.connect(target.port, target.host);
    const pair = [client, upstream];
    for (const socket of pair) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => {
        for (const s of pair) {
          s.destroy();
          open.delete(s);
        }
      });
    }
    client.pipe(upstream).pipe(client);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const cut = () => {
    for (const socket of open) socket.destroy();
  };
  async function outageUntil(over: () => Promise<unknown>): Promise<void> {
    refusing = true;
    cut();
    try {
      await over();
    } finally {
      refusing = false;
    }
  }
  return {
    port,
    via(url) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    outage: (ms) => outageUntil(() => new Promise((resolve) => setTimeout(resolve, ms))),
    outageUntil,
    async down() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        cut();
      });
    },
    async up() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    silence() {
      silent = true;
      // Paused sockets read nothing more: what each side sends waits in the kernel's buffers.
      for (const socket of open) socket.pause();
    },
    speak() {
      silent = false;
      for (const socket of open) socket.resume();
      for (const client of held.splice(0)) {
        forward(client);
        client.resume();
      }
    },
    async close() {
      for (const client of held.splice(0)) client.destroy();
      cut();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The settings naming each service a gateway reaches over TCP. */
export type ProxiedService = 'DATABASE_URL' | 'REDIS_URL' | 'S3_ENDPOINT';

/**
 * A sibling of `gw` whose connections to `service` go through a new proxy,
 * with `env` added to its configuration; the caller closes both.
 */
export async function siblingViaProxy(
  gw: TestGateway,
  service: ProxiedService,
  env: Record<string, string> = {},
): Promise<{ app: TestGateway; proxy: TcpProxy }> {
  const url = gw.config[service]!;
  const u = new URL(url);
  const proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  // A URL keeps no trailing slash the service's own lacked.
  const via = proxy.via(url);
  const app = await gw.startSibling({ [service]: url.endsWith('/') ? via : via.replace(/\/$/, ''), ...env });
  return { app, proxy };
}
