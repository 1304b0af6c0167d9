import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '@weft/devstack';
import { Redis } from 'ioredis';
import { waitFor } from './wait-for';

export interface DedicatedRedis {
  url: string;
  stop(): Promise<void>;
}

/**
 * A `redis-server` of the test's own on a free port, without persistence, for
 * tests that need a Redis configured differently (e.g. an eviction policy):
 * the shared Redis must never be reconfigured. `args` are redis-server options
 * (`['--maxmemory-policy', 'allkeys-lru']`).
 */
export async function startDedicatedRedis(args: string[] = [], redisServer = 'redis-server'): Promise<DedicatedRedis> {
  const port = await freePort();
  const child = spawn(
    redisServer,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: 'ignore' },
  );
  const exited = once(child, 'exit');
  const url = `redis://127.0.0.1:${port}`;
  const probe = new Redis(url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 50 });
  probe.on('error', () => undefined);
  try {
    await waitFor(
      `redis-server on port ${port}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
        return (await probe.ping()) === 'PONG';
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    );
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    probe.disconnect();
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
