import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

// Revocation reaches every gateway instance through one Redis channel: the
// revoking instance publishes the key's public prefix, every instance's
// authenticator evicts it from its in-process cache.
//
// Pub/sub is fire-and-forget: an instance whose subscriber is disconnected
// misses messages. So the subscriber reports "blind" as soon as its connection
// drops and "live" only once the SUBSCRIBE of a new connection is confirmed; the
// cache is cleared at both moments. Anything revoked while we were blind is then
// read again from the database, and any revocation published after the
// confirmation is delivered.

export const revocationChannel = (redisPrefix: string) => `${redisPrefix}:apikey-revoked`;

/** Tells every instance (this one included) to forget the key with this prefix. */
export async function publishRevocation(redis: Redis, redisPrefix: string, prefix: string): Promise<void> {
  await redis.publish(revocationChannel(redisPrefix), prefix);
}

export interface RevocationListener {
  onRevoked(prefix: string): void;
  /** The subscription is confirmed: from now on no revocation is missed. */
  onLive(): void;
  /** The connection dropped: revocations may be missed until the next onLive. */
  onBlind(): void;
}

export interface RevocationSubscription {
  close(): Promise<void>;
}

export function subscribeToRevocations(
  redis: Redis,
  redisPrefix: string,
  listener: RevocationListener,
  logger: Logger,
): RevocationSubscription {
  const channel = revocationChannel(redisPrefix);
  // A connection of its own (a subscribed connection can do nothing else) that
  // retries forever and queues the SUBSCRIBE until it is connected. We subscribe
  // by hand on each connect rather than with autoResubscribe, so that "live" is
  // declared only after Redis has confirmed the subscription.
  const sub = redis.duplicate({
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: false,
    // Shows up in CLIENT LIST, so operators (and tests) can tell this connection apart.
    connectionName: `${redisPrefix}:apikey-revocations`,
  });
  let closing = false;
  let lastErrorLogAt = 0;

  sub.on('message', (ch: string, message: string) => {
    if (ch === channel) listener.onRevoked(message);
  });
  sub.on('ready', () => {
    sub.subscribe(channel).then(
      () => listener.onLive(),
      (err: unknown) => {
        // The connection failed again; 'close' has made us blind and the next 'ready' retries.
        if (!closing) logger.warn({ err: (err as Error).message }, 'api key revocation subscribe failed');
      },
    );
  });
  sub.on('close', () => listener.onBlind());
  sub.on('error', (err: Error) => {
    const now = Date.now();
    if (closing || now - lastErrorLogAt < 10_000) return;
    lastErrorLogAt = now;
    logger.warn({ err: err.message }, 'api key revocation subscriber: redis connection error');
  });

  return {
    async close() {
      closing = true;
      if (sub.status === 'end') return;
      // Between reconnection attempts there is no socket left to emit 'end', hence the timer.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        sub.once('end', () => {
          clearTimeout(timer);
          resolve();
        });
        sub.disconnect();
      });
    },
  };
}
