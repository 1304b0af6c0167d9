import type { Db } from '@weft/db';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config';
import type { Authenticator, RequestRateLimiter } from './http/guard';

/** Everything a request handler may use; built once in main.ts (or by a test). */
export interface GatewayDeps {
  config: GatewayConfig;
  db: Db;
  redis: Redis;
  logger: Logger;
  authenticator: Authenticator;
  rateLimiter: RequestRateLimiter;
  /** Resolves when object storage answers; used by /readyz. */
  pingStorage(): Promise<void>;
}
