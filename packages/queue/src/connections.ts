import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** A connection to the deployment's Redis: one server, or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/**
 * Where Redis is: one server (REDIS_URL), or the seed nodes of a Redis Cluster
 * (REDIS_CLUSTER_NODES, `host:port` each), from which the client learns the rest.
 * A bare string is a URL. A cluster's `auth` URL lends every node's connection
 * its user, password and TLS (`rediss:`); its host is not used.
 */
export type RedisTarget = string | { url: string } | ClusterTarget;

export interface ClusterTarget {
  clusterNodes: readonly string[];
  auth?: string;
}

/** The target a process's config names: the cluster when REDIS_CLUSTER_NODES is set, else REDIS_URL. */
export function redisTargetOf(config: {
  REDIS_URL?: string | undefined;
  REDIS_CLUSTER_NODES?: readonly string[];
}): RedisTarget {
  if (config.REDIS_CLUSTER_NODES && config.REDIS_CLUSTER_NODES.length > 0) {
    return { clusterNodes: config.REDIS_CLUSTER_NODES, ...(config.REDIS_URL ? { auth: config.REDIS_URL } : {}) };
  }
  if (!config.REDIS_URL) throw new Error('neither REDIS_URL nor REDIS_CLUSTER_NODES is set');
  return { url: config.REDIS_URL };
}

export function isClusterTarget(target: RedisTarget): target is ClusterTarget {
  return typeof target !== 'string' && 'clusterNodes' in target;
}

export function isCluster(redis: RedisClient): redis is Cluster {
  return redis instanceof Cluster;
}

/** `host:port` as ioredis takes a cluster's startup node. */
function startupNode(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(node.slice(at + 1)) };
}

/** What a URL says about connecting, apart from where: user, password, TLS. */
function credentialsOf(url: string): RedisOptions {
  const parsed = new URL(url);
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * The one place a Redis connection is made: a `Redis` for a URL, a `Cluster`
 * for seed nodes, the same options either way (on a cluster they apply to
 * each node's connection; the few ioredis keeps at the cluster level are
 * moved there).
 */
export function createRedisClient(target: string | { url: string }, options?: RedisOptions): Redis;
export function createRedisClient(target: RedisTarget, options?: RedisOptions): RedisClient;
export function createRedisClient(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  if (!isClusterTarget(target)) return new Redis(typeof target === 'string' ? target : target.url, options);
  const { enableOfflineQueue, lazyConnect, retryStrategy, keyPrefix, ...redisOptions } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: { ...(target.auth ? credentialsOf(target.auth) : {}), ...redisOptions },
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
    ...(retryStrategy ? { clusterRetryStrategy: (times: number) => retryStrategy(times) } : {}),
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
  };
  return new Cluster(target.clusterNodes.map(startupNode), clusterOptions);
}

/**
 * Another connection to the same Redis with some options changed (a
 * subscriber's, say): ioredis' duplicate(), whose options a cluster keeps per node.
 */
export function duplicateClient(redis: RedisClient, options: RedisOptions = {}): RedisClient {
  if (!isCluster(redis)) return redis.duplicate(options);
  const { enableOfflineQueue, lazyConnect, ...redisOptions } = options;
  return redis.duplicate([], {
    redisOptions: { ...redis.options.redisOptions, ...redisOptions },
    ...(enableOfflineQueue !== undefined ? { enableOfflineQueue } : {}),
    ...(lazyConnect !== undefined ? { lazyConnect } : {}),
  });
}

/**
 * The connections that answer for the keys: the server itself, or each
 * master of a cluster. A command that walks the keyspace (SCAN) or asks
 * about the server (INFO, CLIENT LIST) is sent to each.
 */
export function mastersOf(redis: RedisClient): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/** Keys matching `pattern` over every master (SCAN is per node on a cluster). */
export async function scanKeys(redis: RedisClient, pattern: string, count = 100): Promise<string[]> {
  const found: string[] = [];
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
  }
  return found;
}

/**
 * Producers (the gateway) fail fast when Redis is away, so a request errors
 * instead of hanging; a run already committed is re-enqueued by the workers'
 * reconciler (docs/adr/0006-run-execution.md).
 */
export function createProducerConnection(target: string | { url: string }, options?: RedisOptions): Redis;
export function createProducerConnection(target: RedisTarget, options?: RedisOptions): RedisClient;
export function createProducerConnection(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  return createRedisClient(target, { enableOfflineQueue: false, maxRetriesPerRequest: 1, ...options });
}

/**
 * How long a BullMQ worker waits before it retries recording a finished job
 * after a connection error (its `runRetryDelay`). BullMQ's default, 15 s,
 * keeps the job's slot busy and a SIGTERM waiting that long after every Redis
 * blip; one second is ample for a reconnect and costs nothing when Redis is fine.
 */
export const WORKER_RUN_RETRY_DELAY_MS = 1_000;

/** Workers wait for Redis forever: BullMQ requires `maxRetriesPerRequest: null` for blocking calls. */
export function createWorkerConnection(target: string | { url: string }, options?: RedisOptions): Redis;
export function createWorkerConnection(target: RedisTarget, options?: RedisOptions): RedisClient;
export function createWorkerConnection(target: RedisTarget, options: RedisOptions = {}): RedisClient {
  return createRedisClient(target, { maxRetriesPerRequest: null, ...options });
}
