import net from 'node:net';
import { PortUnavailableError } from './errors';

/**
 * True when something accepts TCP connections on host:port. Only a refused
 * connection means "free": any other outcome is treated as occupied so that we
 * never start a second server on top of a slow first one.
 */
export function isPortListening(port: number, host = '127.0.0.1', timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const finish = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.setTimeout(timeoutMs, () => finish(true));
    socket.once('connect', () => finish(true));
    socket.once('error', (err: NodeJS.ErrnoException) => finish(err.code !== 'ECONNREFUSED'));
  });
}

/**
 * Resolves when we could bind host:port ourselves (then releases it), rejects
 * with EADDRINUSE/EACCES otherwise. Used before spawning a server whose own
 * error for a taken port would be buried in its log.
 */
export function assertPortFree(port: number, host: string, what: string, hint: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => {
      const reason = err.code === 'EADDRINUSE' ? 'is already in use' : `cannot be used (${err.code ?? err.message})`;
      reject(
        new PortUnavailableError(port, `Port ${port} on ${host} ${reason}, so ${what} cannot start there. ${hint}`),
      );
    });
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A port the OS reports free on `host` (the usual tiny race applies). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return resolvePort(0, host);
}

/** `port` itself, or when it is 0 a port the OS reports free (the usual tiny race applies). */
export function resolvePort(port: number, host = '127.0.0.1'): Promise<number> {
  if (port !== 0) return Promise.resolve(port);
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port: 0, host }, () => {
      const { port: free } = server.address() as net.AddressInfo;
      server.close(() => resolve(free));
    });
  });
}
