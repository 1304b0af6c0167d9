import type { AdmissionGate } from '@weft/admission';
import type { CredentialStore, Keyring } from '@weft/credentials';
import type { Db } from '@weft/db';
import type { EndedRunCache } from './runs/ended-run-cache';
import type { RunEventHub } from './runs/events/run-event-hub';
import type { Engine } from '@weft/engine';
import type { Storage, UrlSigner } from '@weft/storage';
import type { Queue } from 'bullmq';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import type { DeploymentRoutes } from '@weft/providers';
import type { AssetJobProducer, WebhookJobProducer } from '@weft/queue';
import type { AssetFiles } from './assets/asset-files';
import type { AgentCatalog } from './catalog/agent-catalog';
import type { GatewayConfig } from './config';
import type { Authenticator, RequestRateLimiter } from './http/guard';
import type { GatewayMetrics } from './metrics/gateway-metrics';

/** Everything a request handler may use; built once in main.ts (or by a test). */
export interface GatewayDeps {
  config: GatewayConfig;
  db: Db;
  redis: RedisClient;
  logger: Logger;
  authenticator: Authenticator;
  rateLimiter: RequestRateLimiter;
  /** Cached agent reads, invalidated across instances. */
  agents: AgentCatalog;
  /** Resolves when object storage answers; used by /readyz. */
  pingStorage(): Promise<void>;
  storage: Storage;
  /** What downloads need of an asset, cached and invalidated across instances. */
  assetFiles: AssetFiles;
  /** URLs of asset files that work without credentials (presigned, or on the CDN). */
  assetUrls: UrlSigner;
  assetJobs: AssetJobProducer;
  /** What this instance's uploads may hold in memory at once. */
  uploadMemory: AdmissionGate;
  /** Run use cases: start, decide reviews, cancel (the gateway never executes nodes). */
  engine: Engine;
  /** Ended runs served from memory by GET /runs/{id} (they never change again). */
  endedRuns: EndedRunCache;
  /** The runs' event streams open on this instance (GET /runs/{id}/events). */
  runEvents: RunEventHub;
  /** Served at GET /metrics. */
  metrics: GatewayMetrics;
  /** The node and asset queues, read by the queue dashboard and the queue metrics. */
  observedQueues: Queue[];
  /** The provider routes of the deployment, as GET /node-types describes them (the gateway calls no provider). */
  nodeRoutes: DeploymentRoutes;
  /** Organizations' provider credentials (sealed only when CREDENTIALS_KEY is set) and chosen routes. */
  credentials: CredentialStore;
  /** CREDENTIALS_KEY, which seals webhook signing secrets; unset, the deployment sends no webhooks. */
  webhookKeyring: Keyring | undefined;
  /** Where resent webhook deliveries are enqueued (the engine enqueues those of run changes). */
  webhookJobs: WebhookJobProducer;
}
