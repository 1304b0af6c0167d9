import type { Server } from 'node:http';
import { logContextOptions } from '@weft/telemetry';
import { createTestEnv, type TestEnv } from '@weft/testing';
import type { Express } from 'express';
import pino from 'pino';
import request from 'supertest';
import { createApp } from '../app';
import { createGatewayRuntime } from '../compose';
import { createHttpServer } from '../http/http-server';
import { serverOptions } from '../http/server-options';
import { loadConfig, type GatewayConfig } from '../config';
import type { GatewayDeps } from '../deps';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789';
export const TEST_JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';

export interface TestGateway {
  app: Express;
  /** The app served as main.ts serves it (createHttpServer), listening on a free port of 127.0.0.1. */
  server: Server;
  deps: GatewayDeps;
  config: GatewayConfig;
  /** Creates an organization through the admin API; returns its id and first API key. */
  createOrg(name?: string, credits?: number): Promise<{ id: string; apiKey: string }>;
  /**
   * Another gateway instance (own clients, own caches) over the same database,
   * Redis prefix and bucket, for behaviour across instances. Its close() leaves
   * the shared environment alone; close it before this one.
   */
  startSibling(env?: Record<string, string>): Promise<TestGateway>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** Reach the database through the test run's PgBouncer in transaction mode (DATABASE_URL with pgbouncer=true). */
  pgbouncer?: boolean;
}

/**
 * The real gateway over real PostgreSQL, Redis and S3, isolated in a database,
 * Redis prefix and bucket of its own. `env` overrides configuration.
 */
export async function startTestGateway(
  env: Record<string, string> = {},
  options: TestGatewayOptions = {},
): Promise<TestGateway> {
  const testEnv = await createTestEnv();
  return buildTestGateway(testEnv, env, options, () => testEnv.cleanup());
}

async function buildTestGateway(
  testEnv: TestEnv,
  env: Record<string, string>,
  options: TestGatewayOptions,
  releaseEnv: () => Promise<void>,
): Promise<TestGateway> {
  const config = loadConfig({
    DATABASE_URL: options.pgbouncer ? testEnv.pgbouncerDatabaseUrl : testEnv.databaseUrl,
    REDIS_URL: testEnv.redisUrl,
    REDIS_PREFIX: testEnv.redisPrefix,
    S3_ENDPOINT: testEnv.s3.endpoint,
    S3_REGION: testEnv.s3.region,
    S3_BUCKET: testEnv.s3.bucket,
    S3_ACCESS_KEY_ID: testEnv.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: testEnv.s3.secretAccessKey,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    JWT_SECRET: TEST_JWT_SECRET,
    LOG_LEVEL: 'silent',
    // A jest worker's event loop stalls for seconds on a loaded machine (a module compiled, a
    // collection); after such a stall the command's timer fires before the answer that already
    // came is read, and a test fails on a Redis that was fine. Tests of the timeout set their own.
    REDIS_COMMAND_TIMEOUT_MS: '30000',
    ...env,
  });
  const logger = pino({ level: config.LOG_LEVEL, ...logContextOptions });
  const runtime = createGatewayRuntime({ ...config, DATABASE_POOL_SIZE: 5 }, logger, { redisOfflineQueue: true });
  const { deps } = runtime;
  const app = createApp(deps);
  const server = createHttpServer(app, serverOptions(config, logger));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Until Redis is ready the rate limiter counts in memory; tests expect the shared counters from the first request.
  await deps.redis.ping();

  return {
    app,
    server,
    deps,
    config,
    async createOrg(name = 'Test org', credits = 1000) {
      const res = await request(app)
        .post('/admin/organizations')
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .send({ name, credits });
      if (res.status !== 201) throw new Error(`createOrg: ${res.status} ${JSON.stringify(res.body)}`);
      return { id: res.body.id as string, apiKey: res.body.api_key as string };
    },
    startSibling(siblingEnv = env) {
      return buildTestGateway(testEnv, siblingEnv, options, async () => undefined);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await runtime.close();
      await releaseEnv();
    },
  };
}
