import type { Queue } from 'bullmq';
import { mastersOf, type RedisClient } from './connections';
import type { Logger } from 'pino';
import { DEFAULT_HEARTBEAT_INTERVAL_MS, heartbeatKey, workerConnectionName, type HeartbeatValue } from './heartbeat';

// A worker process killed while it executes jobs leaves them `active` in
// BullMQ, locked by its token until the lock expires (WORKER_LOCK_DURATION_MS),
// and only then does a stalled check hand them back. Yet the other workers can
// tell it is dead well before: every BullMQ worker of a process is named after
// its heartbeat (WorkerOptions.name, kept on each job it takes as `pb`), and a
// dead process's heartbeat lapses (or is deleted on its way out), its Redis
// connection gone. So the workers look at the active jobs' owners at start
// and then periodically: a job whose owner is dead has its lock deleted and is
// marked stalled, and BullMQ's own stalled check (every STALLED_CHECK_MS) moves
// it back to wait, counting the stall as for any other (maxStalledCount). A job
// without a name (a worker of an older version, a test harness) is never
// touched: its lock lapses as before.

/** How often BullMQ's stalled check runs in a worker (at most its lock duration): a dead worker's job handed back waits this long at most. */
export const STALLED_CHECK_MS = 2_000;

/** Allowance over a heartbeat interval before a key not refreshed counts as stale (a late timer, a slow round trip). */
const STALE_GRACE_MS = 1_000;

/**
 * For each active job whose `pb` names a dead owner (ARGV: owner, the
 * highest PTTL its heartbeat may have for it to count as dead still), deletes
 * its lock and its owner's name and marks it stalled, atomically, so that a
 * heartbeat renewed in between saves the job. Answers the ids handed back.
 */
const HAND_BACK_SCRIPT = `
local active, stalled, jobPrefix, beatPrefix = KEYS[1], KEYS[2], ARGV[1], ARGV[2]
local dead = {}
for i = 3, #ARGV, 2 do dead[ARGV[i]] = tonumber(ARGV[i + 1]) end
local handed = {}
for _, id in ipairs(redis.call('LRANGE', active, 0, -1)) do
  local jobKey = jobPrefix .. id
  local owner = redis.call('HGET', jobKey, 'pb')
  local limit = owner and dead[owner]
  if limit then
    local ttl = redis.call('PTTL', beatPrefix .. owner)
    if ttl ~= -1 and ttl <= limit then
      redis.call('DEL', jobKey .. ':lock')
      redis.call('HDEL', jobKey, 'pb')
      redis.call('SADD', stalled, id)
      handed[#handed + 1] = id
    end
  end
end
return handed
`;

type HandBackCommand = (active: string, stalled: string, ...args: (string | number)[]) => Promise<string[]>;

const COMMAND = 'weftHandBackDeadJobs';

function handBackCommand(redis: RedisClient): HandBackCommand {
  if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 2, lua: HAND_BACK_SCRIPT });
  return (redis as unknown as Record<typeof COMMAND, HandBackCommand>)[COMMAND].bind(redis);
}

/** The owners of the queues' active jobs (the `pb` of each), named ones only. */
async function ownersOf(redis: RedisClient, queues: readonly Queue[]): Promise<Set<string>> {
  const owners = new Set<string>();
  for (const queue of queues) {
    const ids = await redis.lrange(queue.keys.active!, 0, -1);
    if (ids.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(queue.toKey(id), 'pb');
    for (const [, owner] of (await pipeline.exec()) ?? []) if (typeof owner === 'string' && owner) owners.add(owner);
  }
  return owners;
}

/**
 * Names of the connections Redis has now (on a cluster, those of any master: a
 * worker's cluster client connects to each); undefined where CLIENT LIST is
 * refused (some managed services).
 */
async function connectionNames(redis: RedisClient): Promise<Set<string> | undefined> {
  try {
    const lists = await Promise.all(mastersOf(redis).map((node) => node.call('CLIENT', 'LIST') as Promise<string>));
    return new Set(lists.flatMap((list) => [...list.matchAll(/(?:^| )name=(\S+)/gm)].map((m) => m[1]!)));
  } catch {
    return undefined;
  }
}

/**
 * The dead among `owners`, each with the highest heartbeat PTTL at which it
 * still counts as dead: -2 (no key) for one whose heartbeat is gone; for one
 * whose key has not been refreshed for over an interval and whose connection
 * Redis no longer has (SIGKILLed a moment ago), the PTTL it has now, so a beat
 * landing before the hand-back spares it.
 */
async function deadOwners(redis: RedisClient, prefix: string, owners: Set<string>): Promise<Map<string, number>> {
  const dead = new Map<string, number>();
  if (owners.size === 0) return dead;
  const list = [...owners];
  const pipeline = redis.pipeline();
  for (const owner of list) pipeline.pttl(heartbeatKey(prefix, owner)).get(heartbeatKey(prefix, owner));
  const replies = (await pipeline.exec()) ?? [];
  const stale = new Map<string, number>();
  list.forEach((owner, i) => {
    const ttl = replies[2 * i]?.[1];
    const raw = replies[2 * i + 1]?.[1];
    if (ttl === -2) return void dead.set(owner, -2);
    if (typeof ttl !== 'number' || ttl < 0 || typeof raw !== 'string') return;
    let intervalMs = DEFAULT_HEARTBEAT_INTERVAL_MS;
    try {
      intervalMs = (JSON.parse(raw) as Partial<HeartbeatValue>).intervalMs ?? intervalMs;
    } catch {
      // A value this version did not write: the default interval.
    }
    // The key was set for three intervals at the owner's last beat.
    if (3 * intervalMs - ttl > intervalMs + STALE_GRACE_MS) stale.set(owner, ttl);
  });
  if (stale.size > 0) {
    const connected = await connectionNames(redis);
    if (connected) {
      for (const [owner, ttl] of stale) if (!connected.has(workerConnectionName(prefix, owner))) dead.set(owner, ttl);
    }
  }
  return dead;
}

/**
 * Hands back to the queues the active jobs of dead worker processes (see the
 * top of this file); answers how many. Safe to run in every worker at once.
 */
export async function handBackDeadWorkersJobs(
  redis: RedisClient,
  prefix: string,
  queues: readonly Queue[],
): Promise<number> {
  const dead = await deadOwners(redis, prefix, await ownersOf(redis, queues));
  if (dead.size === 0) return 0;
  const handBack = handBackCommand(redis);
  const args = [...dead].flatMap(([owner, limit]) => [owner, limit]);
  // The script reads the copy of each heartbeat in its queue's slot (a light
  // shard's, on a cluster: heartbeat.ts), written in the same beat as the one
  // read above but not at the same instant: a grace covers that, and a beat
  // since sets three intervals, far above it.
  const shardArgs = [...dead].flatMap(([owner, limit]) => [owner, limit < 0 ? limit : limit + STALE_GRACE_MS]);
  let count = 0;
  for (const queue of queues) {
    const queuePrefix = queue.opts.prefix ?? prefix;
    const ids = await handBack(
      queue.keys.active!,
      queue.keys.stalled!,
      queue.toKey(''),
      heartbeatKey(queuePrefix, ''),
      ...(queuePrefix === prefix ? args : shardArgs),
    );
    count += ids.length;
  }
  return count;
}

export interface DeadWorkerSweepOptions {
  redis: RedisClient;
  prefix: string;
  queues: readonly Queue[];
  intervalMs: number;
  logger: Logger;
}

/** Runs `handBackDeadWorkersJobs` now and every `intervalMs`, on a plain timer (a repeatable job would go with Redis's data). */
export function startDeadWorkerSweep({ redis, prefix, queues, intervalMs, logger }: DeadWorkerSweepOptions) {
  let running: Promise<unknown> | undefined;
  const sweep = () => {
    // A pass still under way (Redis slow to answer) is not doubled.
    if (running) return;
    running = handBackDeadWorkersJobs(redis, prefix, queues)
      .then(
        (count) => {
          if (count > 0) logger.info({ count }, 'handed back the jobs of dead workers');
        },
        (err: unknown) => {
          logger.warn(
            { err: (err as Error).message },
            'looking for dead workers’ jobs failed; retrying at the next tick',
          );
        },
      )
      .finally(() => (running = undefined));
  };
  sweep();
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
