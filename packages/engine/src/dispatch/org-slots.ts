import { ExecuteNodeJob, executeNodeJobId, shardPrefixes } from '@weft/queue';
import type { RedisClient } from '@weft/queue';

// Fair sharing of the node queues between organizations (ADR 0025). An
// organization holds at most `maxPerOrg` slots; a node job enters BullMQ only
// once it holds one, and waits in its organization's own list otherwise, so
// one organization's backlog never sits in front of another's first node.
//
// Per organization, in Redis:
//   held      sorted set: job id → lease expiry (ms, Redis's clock)
//   waiting   list of job ids, oldest first
//   payloads  hash: job id → the job's payload, while it waits
// and one for the deployment (on a cluster, one per shard of the light lane, under
// the shard's prefix with its organizations' keys, so that the script's four keys
// share a slot: ADR 0035):
//   backlog   sorted set: organization id → its number of waiting jobs (absent at 0),
//             so that dashboards read every organization's backlog in one command
// A slot is a lease on Redis's clock: the worker executing the job renews it;
// one nobody renews (its worker was killed, its job vanished) expires and
// comes back.

export interface OrgSlotsSettings {
  /** Node jobs of one organization queued in BullMQ or executing at once. */
  maxPerOrg: number;
  /** A slot not renewed for this long is taken back. */
  leaseMs?: number;
}

/**
 * Where a lane's slots live: the light lane's (provider calls) under `org-slots`,
 * the heavy lane's (media work) under `org-slots:media`, each with its own cap.
 */
export type SlotKeyspace = 'org-slots' | 'org-slots:media';

/** Long enough to ride out a queue wait and a Redis blip; a killed worker's slot is back within it. */
export const DEFAULT_SLOT_LEASE_MS = 60_000;

/**
 * One script for every change, so that expiry, the change and handing freed
 * slots to the oldest waiting jobs happen atomically. Answers the payloads of
 * the jobs that now hold a slot and must be enqueued.
 */
const SLOTS_SCRIPT = `
local held, waiting, payloads, backlog = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local cap, lease, org = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
local ready = {}
if ARGV[3] == 'admit' then
  for i = 5, #ARGV, 2 do
    local id, payload = ARGV[i], ARGV[i + 1]
    if redis.call('ZSCORE', held, id) then
      -- Holds a slot already: its job went missing and is enqueued again.
      redis.call('ZADD', held, now + lease, id)
      ready[#ready + 1] = payload
    elseif redis.call('HSETNX', payloads, id, payload) == 1 then
      redis.call('RPUSH', waiting, id)
    end
  end
elseif ARGV[3] == 'renew' then
  for i = 5, #ARGV do redis.call('ZADD', held, now + lease, ARGV[i]) end
  return ready
else
  for i = 5, #ARGV do
    local id = ARGV[i]
    redis.call('ZREM', held, id)
    if redis.call('HDEL', payloads, id) == 1 then redis.call('LREM', waiting, 1, id) end
  end
end
while redis.call('ZCARD', held) < cap do
  local id = redis.call('LPOP', waiting)
  if not id then break end
  local payload = redis.call('HGET', payloads, id)
  if payload then
    redis.call('HDEL', payloads, id)
    redis.call('ZADD', held, now + lease, id)
    ready[#ready + 1] = payload
  end
end
local backlogged = redis.call('LLEN', waiting)
if backlogged > 0 then redis.call('ZADD', backlog, backlogged, org) else redis.call('ZREM', backlog, org) end
return ready
`;

type SlotsCommand = (
  held: string,
  waiting: string,
  payloads: string,
  backlog: string,
  ...args: (string | number)[]
) => Promise<string[]>;

const COMMAND = 'weftOrgSlots';

const backlogKey = (prefix: string, keyspace: SlotKeyspace) => `${prefix}:${keyspace}:backlog`;

export interface SlotBacklog {
  /** Node jobs waiting for a slot (no BullMQ job yet), over every organization. */
  nodes: number;
  /** Organizations with at least one. */
  organizations: number;
}

/**
 * What waits for a slot in the whole deployment, both lanes, in one Redis
 * command per backlog (for dashboards): the heavy lane's under `prefix`, the
 * light lane's in each of its `shards` (createRunQueues).
 */
export async function readSlotBacklog(redis: RedisClient, prefix: string, shards = 1): Promise<SlotBacklog> {
  const keys = [
    ...shardPrefixes(prefix, shards).map((shard) => backlogKey(shard, 'org-slots')),
    backlogKey(prefix, 'org-slots:media'),
  ];
  const lanes = await Promise.all(keys.map((key) => redis.zrange(key, 0, -1, 'WITHSCORES')));
  let nodes = 0;
  const organizations = new Set<string>();
  for (const flat of lanes) {
    for (let i = 0; i < flat.length; i += 2) {
      organizations.add(flat[i]!);
      nodes += Number(flat[i + 1]);
    }
  }
  return { nodes, organizations: organizations.size };
}

export class OrgSlots {
  readonly maxPerOrg: number;
  readonly leaseMs: number;
  private readonly run: SlotsCommand;
  private readonly prefixOf: (orgId: string) => string;

  constructor(
    private readonly redis: RedisClient,
    /** The key prefix of the slots: the deployment's, or per organization its shard's (ADR 0035). */
    prefix: string | ((orgId: string) => string),
    settings: OrgSlotsSettings,
    private readonly keyspace: SlotKeyspace = 'org-slots',
  ) {
    this.prefixOf = typeof prefix === 'string' ? () => prefix : prefix;
    this.maxPerOrg = settings.maxPerOrg;
    this.leaseMs = settings.leaseMs ?? DEFAULT_SLOT_LEASE_MS;
    // ioredis sends it by SHA and loads it again after a Redis restart or flush.
    if (!(COMMAND in redis)) redis.defineCommand(COMMAND, { numberOfKeys: 4, lua: SLOTS_SCRIPT });
    const command = (redis as unknown as Record<typeof COMMAND, SlotsCommand>)[COMMAND];
    this.run = command.bind(redis);
  }

  /**
   * Queues `jobs` behind the organization's waiting ones; answers those that
   * hold a slot now (the oldest waiting first), to enqueue in BullMQ. A job
   * already waiting stays where it is; one already holding a slot is answered
   * again (its BullMQ job is missing), so a repeat is harmless.
   */
  async admit(orgId: string, jobs: ExecuteNodeJob[]): Promise<ExecuteNodeJob[]> {
    const args = jobs.flatMap((job) => [executeNodeJobId(job), JSON.stringify(job)]);
    return this.call(orgId, 'admit', args);
  }

  /** Gives back the slots of finished jobs and forgets waiting ones (canceled); answers the jobs that took the freed slots. */
  async release(orgId: string, jobIds: string[]): Promise<ExecuteNodeJob[]> {
    return this.call(orgId, 'release', jobIds);
  }

  /** Extends the leases of jobs being executed (taking the slot back if it had lapsed). */
  async renew(held: { orgId: string; jobId: string }[]): Promise<void> {
    const byOrg = new Map<string, string[]>();
    for (const { orgId, jobId } of held) byOrg.set(orgId, [...(byOrg.get(orgId) ?? []), jobId]);
    await Promise.all([...byOrg].map(([orgId, jobIds]) => this.call(orgId, 'renew', jobIds)));
  }

  /** Whether the job waits for a slot (it has no BullMQ job yet, by design). */
  async isWaiting(orgId: string, jobId: string): Promise<boolean> {
    return (await this.redis.hexists(this.key(orgId, 'payloads'), jobId)) === 1;
  }

  private async call(orgId: string, mode: 'admit' | 'release' | 'renew', args: string[]): Promise<ExecuteNodeJob[]> {
    const ready = await this.run(
      this.key(orgId, 'held'),
      this.key(orgId, 'waiting'),
      this.key(orgId, 'payloads'),
      backlogKey(this.prefixOf(orgId), this.keyspace),
      this.maxPerOrg,
      this.leaseMs,
      mode,
      orgId,
      ...args,
    );
    return ready.map((payload) => ExecuteNodeJob.parse(JSON.parse(payload)));
  }

  private key(orgId: string, part: 'held' | 'waiting' | 'payloads'): string {
    return `${this.prefixOf(orgId)}:${this.keyspace}:${orgId}:${part}`;
  }
}
