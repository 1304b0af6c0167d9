import { loadAgent, readableAgent, readableStoredAgent, type StoredAgent } from '@weft/catalog';
import type { Agent } from '@weft/contracts';
import type { Db } from '@weft/db';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import { createSharedCache } from '../cache/shared-cache';

// Agents are read far more often than they change (a new version, at most a
// few times a day), and `GET /agents/{id}` is the catalog's hottest read. Each
// gateway instance keeps the rows it served; an instance that changes an agent
// publishes its id on a Redis channel and every instance forgets it, so a new
// version is visible everywhere at once (bounded by `ttlMs` only if a message
// is lost, and by one second while a subscriber is reconnecting).

export interface AgentCatalog {
  /** The agent as `orgId` may see it: 404 when missing or not readable, 422 without an active version. */
  get(orgId: string, agentId: string): Promise<Agent>;
  /** The stored agent as `orgId` may see it, with its active version id (creating a run): 404 when not readable. */
  stored(orgId: string, agentId: string): Promise<StoredAgent>;
  /** Call after committing a change to the agent: every instance reads it afresh. */
  changed(agentId: string): Promise<void>;
  whenLive(): Promise<void>;
  close(): Promise<void>;
}

export interface AgentCatalogDeps {
  db: Db;
  redis: RedisClient;
  redisPrefix: string;
  ttlMs: number;
  logger: Logger;
}

export const agentChangesChannel = (redisPrefix: string) => `${redisPrefix}:agent-changed`;

export function createAgentCatalog({ db, redis, redisPrefix, ttlMs, logger }: AgentCatalogDeps): AgentCatalog {
  const cache = createSharedCache<StoredAgent>({
    redis,
    channel: agentChangesChannel(redisPrefix),
    ttlMs,
    load: (id) => loadAgent(db, id),
    logger: logger.child({ component: 'agent-catalog' }),
  });
  return {
    async get(orgId, agentId) {
      return readableAgent(await cache.get(agentId), orgId, agentId);
    },
    async stored(orgId, agentId) {
      return readableStoredAgent(await cache.get(agentId), orgId);
    },
    changed: (agentId) => cache.changed(agentId),
    whenLive: () => cache.whenLive(),
    close: () => cache.close(),
  };
}
