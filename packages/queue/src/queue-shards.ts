import { createHash } from 'node:crypto';

// On a Redis Cluster every key under the deployment's prefix shares its hash
// tag ({weft}), so it lives in one slot, on one master. The light lane, which
// carries nearly all the work (provider calls and bookkeeping), is split into
// shards instead: shard 0 keeps the prefix, shard i > 0 has the tag
// {weft:i}, so its queue and the slots of its organizations live in a slot of
// their own, and the masters share the shards. An organization's light-lane
// work all goes to one shard (the slot script needs the organization's keys in
// one slot), chosen by a hash of its id. On one Redis there is one shard. ADR 0035.

/** The key prefix of each shard, shard 0 first: `prefix` itself when there is one shard or no hash tag to vary. */
export function shardPrefixes(prefix: string, shards: number): string[] {
  const open = prefix.indexOf('{');
  const close = open >= 0 ? prefix.indexOf('}', open + 1) : -1;
  if (shards <= 1 || close <= open + 1) return [prefix];
  const tag = prefix.slice(open + 1, close);
  return Array.from({ length: shards }, (_, i) =>
    i === 0 ? prefix : `${prefix.slice(0, open)}{${tag}:${i}}${prefix.slice(close + 1)}`,
  );
}

/** Which of `shards` shards holds the organization's light-lane work: the same in every process. */
export function shardOf(organizationId: string, shards: number): number {
  if (shards <= 1) return 0;
  return createHash('sha1').update(organizationId).digest().readUInt32BE(0) % shards;
}

/** The shards of a deployment's light lane. */
export interface QueueShards {
  /** Each shard's key prefix, by shard number. */
  readonly prefixes: readonly string[];
  /** The prefix of the shard holding the organization's work (shard 0 without one: jobs of an older version). */
  prefixOf(organizationId: string | undefined): string;
}

export function queueShards(prefix: string, shards: number): QueueShards {
  const prefixes = shardPrefixes(prefix, shards);
  return {
    prefixes,
    prefixOf: (organizationId) => prefixes[organizationId ? shardOf(organizationId, prefixes.length) : 0]!,
  };
}

/** The light lane's shard count a process's config gives: REDIS_QUEUE_SHARDS on a cluster, one on a single Redis. */
export function queueShardCount(config: {
  REDIS_CLUSTER_NODES?: readonly string[];
  REDIS_QUEUE_SHARDS?: number;
}): number {
  return config.REDIS_CLUSTER_NODES && config.REDIS_CLUSTER_NODES.length > 0 ? (config.REDIS_QUEUE_SHARDS ?? 1) : 1;
}
