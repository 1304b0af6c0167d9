import { checkEvictionPolicy } from '@weft/queue';
import type { Cluster, Redis } from 'ioredis';

// /readyz of the gateway and of every worker: database, Redis and object
// storage reachable, and Redis' eviction policy `noeviction` (anything else
// would drop queued work silently: packages/queue eviction-policy.ts), plus
// what the process itself adds (a worker: whether it is taking jobs).

export type CheckResult = 'ok' | 'fail';

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckResult>;
  /** What an operator must fix, when a failing check can say more than its name. */
  messages?: string[];
}

export interface ReadinessSources {
  pingDatabase(): Promise<unknown>;
  redis: Redis | Cluster;
  pingStorage(): Promise<unknown>;
  /** The process's own conditions, by check name (a worker: `processors`, whether it takes jobs). */
  local?: Record<string, () => boolean>;
}

const TIMEOUT_MS = 2000;

/** A failed check whose message is safe and useful to show. */
class ReadinessProblem extends Error {}

async function check(probe: () => Promise<unknown>, messages: string[]): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch (err) {
    if (err instanceof ReadinessProblem) messages.push(err.message);
    return 'fail';
  } finally {
    clearTimeout(timer);
  }
}

export async function readiness(sources: ReadinessSources): Promise<Readiness> {
  const messages: string[] = [];
  const [database, redis, storage, redis_policy] = await Promise.all([
    check(() => sources.pingDatabase(), messages),
    check(() => sources.redis.ping(), messages),
    check(() => sources.pingStorage(), messages),
    check(async () => {
      const policy = await checkEvictionPolicy(sources.redis);
      if (!policy.ok) throw new ReadinessProblem(policy.message);
    }, messages),
  ]);
  const checks: Record<string, CheckResult> = { database, redis, storage, redis_policy };
  for (const [name, holds] of Object.entries(sources.local ?? {})) checks[name] = holds() ? 'ok' : 'fail';
  const ok = Object.values(checks).every((c) => c === 'ok');
  return { status: ok ? 'ok' : 'unavailable', checks, ...(messages.length > 0 ? { messages } : {}) };
}
