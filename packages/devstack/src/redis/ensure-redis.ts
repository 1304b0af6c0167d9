import { PortInUseError } from '../errors';
import { isPortListening, resolvePort } from '../tcp';
import { noStop, silent, LOCALHOST, type EnsureServiceOptions, type ServiceHandle } from '../service-handle';
import { startEmbeddedRedis } from './embedded-redis';
import { findOrInstallRedisServer } from './find-redis-server';
import { probeRedis } from './probe-redis';

export const DEFAULT_REDIS_PORT = 6379;

export interface EnsureRedisOptions extends EnsureServiceOptions {
  /** REDIS_URL, when the user set one: used as is; nothing is probed or started. */
  url?: string;
}

export interface RedisHandle extends ServiceHandle {
  url: string;
}

/**
 * A Redis to use: the given URL; else the server already on the local port;
 * else `redis-server` started (on `embeddedPort`, default the same port) with
 * its data in `dataDir`.
 */
export async function ensureRedis(options: EnsureRedisOptions): Promise<RedisHandle> {
  if (options.url) return { url: options.url, source: 'env', stop: noStop };
  const log = options.log ?? silent;
  const port = options.port ?? DEFAULT_REDIS_PORT;

  const useRunning = async (): Promise<RedisHandle> => {
    try {
      await probeRedis(port);
    } catch (err) {
      throw new PortInUseError(port, 'Redis', 'Stop what listens there, or set REDIS_URL to the Redis to use.', err);
    }
    log(`redis: using the server already running on ${LOCALHOST}:${port}`);
    return { url: `redis://${LOCALHOST}:${port}`, source: 'local', stop: noStop };
  };

  if (await isPortListening(port)) return useRunning();
  const redisServer = findOrInstallRedisServer(log);
  // Debian's package starts its own service on 6379 right after installing.
  if (redisServer.installed && (await isPortListening(port))) return useRunning();

  const embeddedPort = await resolvePort(options.embeddedPort ?? port);
  const server = await startEmbeddedRedis({
    dataDir: options.dataDir,
    port: embeddedPort,
    redisServer: redisServer.path,
    log,
  });
  return {
    url: `redis://${LOCALHOST}:${embeddedPort}`,
    source: 'embedded',
    async stop() {
      await server.stop();
      log('redis: stopped');
    },
  };
}
