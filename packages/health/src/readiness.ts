import { checkEvictionPolicy } from '@weft/queue';
import type { Redis } from 'ioredis';

// /readyz of a worker: the same dependencies and body shape as the gateway's
// (apps/gateway/src/routes/health/health.routes.ts), plus whether this
// process is taking jobs (false while it starts and once it drains).

export type CheckResult = 'ok' | 'fail';

export interface Readiness {
  status: 'ok' | 'unavailable';
  checks: Record<string, CheckResult>;
  /** What an operator must fix, when a failing check can say more than its name. */
  messages?: string[];
}

export interface ReadinessSources {
  pingDatabase(): Promise<unknown>;
  redis: Redis;
  pingStorage(): Promise<unknown>;
  /** Whether the job processors are running. */
  processing(): boolean;
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
  const checks: Record<string, CheckResult> = {
    database,
    redis,
    storage,
    redis_policy,
    processors: sources.processing() ? 'ok' : 'fail',
  };
  const ok = Object.values(checks).every((c) => c === 'ok');
  return { status: ok ? 'ok' : 'unavailable', checks, ...(messages.length > 0 ? { messages } : {}) };
}
