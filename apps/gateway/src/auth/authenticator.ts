import { apiKeyMatches, findApiKey, organizationExists, parseApiKey, type ApiKeyRow } from '@weft/accounts';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Db } from '@weft/db';
import { AppError, ForbiddenError, ServiceUnavailableError, UnauthorizedError } from '@weft/errors';
import type { Request } from 'express';
import type { RedisClient } from '@weft/queue';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config';
import { followInvalidations } from '../cache/shared-cache';
import type { AuthContext } from '../http/auth-context';
import type { Authenticator } from '../http/guard';
import { ApiKeyCache } from './api-key-cache';
import { verifyJwt } from './jwt';
import { KnownOrganizations } from './known-organizations';
import { revocationChannel } from './revocation';

// Who is calling (docs/api.md#authentication). Nothing here may log a key
// or token: log lines carry at most the public key prefix.

export interface AuthenticatorDeps {
  db: Db;
  redis: RedisClient;
  config: Pick<GatewayConfig, 'REDIS_PREFIX' | 'API_KEY_CACHE_TTL_MS' | 'JWT_SECRET' | 'ADMIN_TOKEN'>;
  logger: Logger;
}

export type GatewayAuthenticator = Authenticator & {
  /** Forgets a key this process has just revoked, without waiting for the Redis message. */
  forgetApiKey(prefix: string): void;
  /** Resolves once revocations are being received; until then keys are trusted only briefly. */
  whenLive(): Promise<void>;
  close(): Promise<void>;
};

const sha256 = (text: string) => createHash('sha256').update(text).digest();

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** The active organization: the requested one if the caller may act for it, else the first allowed. */
function selectOrganization(req: Request, allowed: string[]): string {
  const requested = header(req, 'x-organization-id')?.toLowerCase();
  if (requested === undefined) {
    const first = allowed[0];
    if (first === undefined) throw new ForbiddenError('The token grants access to no organization');
    return first;
  }
  if (!allowed.includes(requested)) {
    throw new ForbiddenError('X-Organization-Id names an organization the caller does not belong to');
  }
  return requested;
}

export function createAuthenticator({ db, redis, config, logger }: AuthenticatorDeps): GatewayAuthenticator {
  const log = logger.child({ component: 'auth' });
  const cache = new ApiKeyCache({
    ttlMs: config.API_KEY_CACHE_TTL_MS,
    load: async (prefix): Promise<ApiKeyRow | null> => {
      try {
        return await findApiKey(db, prefix);
      } catch (err) {
        log.error({ err: (err as Error).message }, 'api key lookup failed');
        throw new ServiceUnavailableError('Authentication is temporarily unavailable');
      }
    },
  });
  const revocations = followInvalidations(cache, redis, revocationChannel(config.REDIS_PREFIX), log);
  // Hashed once so that the comparison is constant-time whatever the presented length.
  const adminTokenHash = config.ADMIN_TOKEN ? sha256(config.ADMIN_TOKEN) : undefined;

  async function viaApiKey(req: Request, key: string): Promise<AuthContext> {
    const parsed = parseApiKey(key);
    if (!parsed) throw new UnauthorizedError('Malformed API key');
    const entry = await cache.get(parsed.prefix);
    if (!entry) throw new UnauthorizedError('Unknown or revoked API key');
    if (!apiKeyMatches(key, entry.hash)) {
      log.info({ keyPrefix: parsed.prefix }, 'api key with a wrong secret');
      throw new UnauthorizedError('Unknown or revoked API key');
    }
    // A key belongs to exactly one organization; naming it in X-Organization-Id is allowed.
    const organizationId = selectOrganization(req, [entry.organizationId]);
    return { organizationId, subject: `key:${entry.id}`, kind: 'api_key' };
  }

  const organizations = new KnownOrganizations(async (id) => {
    try {
      return await organizationExists(db, id);
    } catch (err) {
      log.error({ err: (err as Error).message }, 'organization lookup failed');
      throw new ServiceUnavailableError('Authentication is temporarily unavailable');
    }
  });

  async function viaJwt(req: Request, token: string): Promise<AuthContext> {
    if (!config.JWT_SECRET) {
      throw new UnauthorizedError('Bearer tokens are not accepted: JWT authentication is disabled');
    }
    const identity = verifyJwt(token, config.JWT_SECRET);
    const organizationId = selectOrganization(req, identity.orgs);
    if (!(await organizations.has(organizationId))) {
      throw new ForbiddenError('The token names an organization that does not exist');
    }
    return { organizationId, subject: `user:${identity.sub}`, kind: 'jwt' };
  }

  return {
    async authenticate(req) {
      // X-Api-Key wins when both headers are sent: a proxy may add an Authorization of its own.
      const apiKey = header(req, 'x-api-key');
      if (apiKey !== undefined) return viaApiKey(req, apiKey);
      const authorization = header(req, 'authorization');
      if (authorization === undefined) {
        throw new UnauthorizedError('Not authenticated: send X-Api-Key or Authorization: Bearer <token>');
      }
      const match = /^Bearer +(\S+)$/i.exec(authorization);
      if (!match) throw new UnauthorizedError('Malformed Authorization header: expected Bearer <token>');
      const token = match[1]!;
      // An API key sent as a bearer token is accepted too, as many HTTP clients only know Bearer.
      if (token.startsWith('weft_')) return viaApiKey(req, token);
      return viaJwt(req, token);
    },

    authenticateAdmin(req) {
      // Disabled admin answers like an unknown path, so it does not advertise itself.
      if (!adminTokenHash) throw new AppError(404, 'Not Found');
      const match = /^Bearer +(\S+)$/i.exec(header(req, 'authorization') ?? '');
      if (!match || !timingSafeEqual(sha256(match[1]!), adminTokenHash)) {
        throw new UnauthorizedError('Missing or wrong admin token');
      }
    },

    forgetApiKey(prefix) {
      cache.evict(prefix);
    },

    whenLive: () => revocations.whenLive(),

    close: () => revocations.close(),
  };
}
