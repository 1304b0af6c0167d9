import { createDb, type Db } from '@weft/db';
import type { NodeRoutes } from '@weft/nodes';
import { createWorkerConnection } from '@weft/queue';
import { createStorage } from '@weft/storage';
import { createTestEnv, type TestEnv } from '@weft/testing';
import type { Redis } from 'ioredis';
import pino from 'pino';
import {
  createEngine,
  createRunQueues,
  listenForCancellations,
  type Engine,
  type RunEndedFact,
  type RunQueues,
} from '../index';

export interface EngineTestStack {
  env: TestEnv;
  db: Db;
  /** The connection the queues use and cancellations are published on. */
  redis: Redis;
  queues: RunQueues;
  /** An engine as a worker builds it (storage, image limits, the cancel subscription), with no processor taking jobs. */
  engine: Engine;
  /** What the engine told its runEnded observer, in order. */
  ended: RunEndedFact[];
  close(): Promise<void>;
}

export interface EngineTestOptions {
  /** Light-lane nodes of one organization queued or executing at once (default: enough never to wait). */
  maxPerOrg?: number;
  /** Heavy-lane (media) nodes of one organization queued or executing at once (default: `maxPerOrg`). */
  maxMediaPerOrg?: number;
  /** The provider routes provider nodes (and the cancel sweep) go through (default: none). */
  nodeRoutes?: NodeRoutes;
}

/**
 * An engine over a database, Redis prefix and bucket of their own. Nothing
 * consumes its queues: a test reads the jobs and hands them to executeNode
 * itself, so every step happens when the test says.
 */
export async function startEngineTestStack({
  maxPerOrg = 100,
  maxMediaPerOrg = maxPerOrg,
  nodeRoutes,
}: EngineTestOptions = {}): Promise<EngineTestStack> {
  const env = await createTestEnv();
  const db = createDb({ databaseUrl: env.databaseUrl, poolSize: 4 });
  const redis = createWorkerConnection(env.redisUrl);
  const subscriber = createWorkerConnection(env.redisUrl);
  const storage = createStorage(env.s3);
  const queues = createRunQueues(redis, env.redisPrefix, {
    light: { maxPerOrg },
    heavy: { maxPerOrg: maxMediaPerOrg },
  });
  const ended: RunEndedFact[] = [];
  const engine = createEngine({
    db,
    queues,
    publisher: redis,
    redisPrefix: env.redisPrefix,
    logger: pino({ level: 'silent' }),
    storage,
    imageLimits: { maxPixels: 4096 * 4096 },
    // The provider double listens on loopback.
    outboundAllowList: ['127.0.0.1'],
    hooks: { runEnded: (fact) => ended.push(fact) },
    ...(nodeRoutes ? { nodeRoutes } : {}),
  });
  await listenForCancellations(subscriber, env.redisPrefix, engine.inFlight);
  return {
    env,
    db,
    redis,
    queues,
    engine,
    ended,
    async close() {
      await queues.close();
      subscriber.disconnect();
      redis.disconnect();
      storage.close();
      await db.close();
      await env.cleanup();
    },
  };
}
