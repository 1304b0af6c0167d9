import { mastersOf, type RedisClient } from './connections';

// BullMQ keeps jobs as ordinary Redis keys. Under any eviction policy but
// `noeviction`, a Redis at its memory limit deletes keys to make room: queued
// jobs vanish without an error anywhere. With `noeviction` it refuses writes
// instead, which BullMQ and the gateway report. Read with INFO, not CONFIG GET:
// managed Redis services often disable CONFIG.

export const REQUIRED_EVICTION_POLICY = 'noeviction';

export interface EvictionPolicyCheck {
  ok: boolean;
  /** What Redis reports; undefined when INFO did not say. */
  policy: string | undefined;
  /** Why it is not ok, for logs and readiness responses. */
  message?: string;
}

/** `maxmemory_policy` from an `INFO memory` reply. */
export function parseEvictionPolicy(info: string): string | undefined {
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}

/** Reads Redis' eviction policy (on a cluster, every master's: the first wrong one is reported); throws only when Redis cannot be asked. */
export async function checkEvictionPolicy(redis: RedisClient): Promise<EvictionPolicyCheck> {
  const policies = await Promise.all(
    mastersOf(redis).map(async (node) => parseEvictionPolicy(await node.info('memory'))),
  );
  const policy = policies.find((p) => p !== REQUIRED_EVICTION_POLICY) ?? policies[0];
  if (policy === REQUIRED_EVICTION_POLICY) return { ok: true, policy };
  const found = policy === undefined ? 'does not report its maxmemory-policy' : `has maxmemory-policy ${policy}`;
  return {
    ok: false,
    policy,
    message:
      `Redis ${found}: under memory pressure it may silently drop queued work. ` +
      `Weft requires 'maxmemory-policy ${REQUIRED_EVICTION_POLICY}' (set it in redis.conf or your provider's parameter group).`,
  };
}

/** The part of a pino logger this module uses. */
export interface PolicyLogger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Checks the policy now if connected, and again at every (re)connection (a
 * failover may land on a differently configured server); logs a wrong policy
 * at error level. Readiness (/readyz) reports it as well.
 */
export function watchEvictionPolicy(redis: RedisClient, logger: PolicyLogger): void {
  const verify = () => {
    checkEvictionPolicy(redis).then(
      (check) => {
        if (!check.ok) logger.error({ maxmemoryPolicy: check.policy ?? null }, check.message ?? 'wrong Redis policy');
      },
      (err: unknown) => logger.warn({ err: (err as Error).message }, 'could not read the Redis eviction policy'),
    );
  };
  if (redis.status === 'ready') verify();
  redis.on('ready', verify);
}
