import { duplicateClient, type RedisClient } from '@weft/queue';
import type { Logger } from 'pino';

// Cached data is invalidated on every gateway instance through a Redis
// channel: the instance that changes something publishes its key, every
// instance's subscriber evicts it.
//
// Pub/sub is fire-and-forget: an instance whose subscriber is disconnected
// misses messages. So the subscriber reports "blind" as soon as its connection
// drops and "live" only once the SUBSCRIBE of a new connection is confirmed;
// caches clear themselves at both moments (InvalidatedCache.setLive). Anything
// changed while we were blind is then read again from the database, and any
// message published after the confirmation is delivered.

export interface InvalidationListener {
  onMessage(message: string): void;
  /** The subscription is confirmed: from now on no message is missed. */
  onLive(): void;
  /** The connection dropped: messages may be missed until the next onLive. */
  onBlind(): void;
}

export interface InvalidationSubscription {
  close(): Promise<void>;
}

export function subscribeToInvalidations(
  redis: RedisClient,
  channel: string,
  listener: InvalidationListener,
  logger: Logger,
): InvalidationSubscription {
  // A connection of its own (a subscribed connection can do nothing else) that
  // retries forever and queues the SUBSCRIBE until it is connected. We subscribe
  // by hand on each connect rather than with autoResubscribe, so that "live" is
  // declared only after Redis has confirmed the subscription.
  const sub = duplicateClient(redis, {
    enableOfflineQueue: true,
    maxRetriesPerRequest: null,
    autoResubscribe: false,
    // Shows up in CLIENT LIST, so operators (and tests) can tell this connection apart.
    connectionName: `${channel}:subscriber`,
  });
  let closing = false;
  let lastErrorLogAt = 0;

  sub.on('message', (ch: string, message: string) => {
    if (ch === channel) listener.onMessage(message);
  });
  sub.on('ready', () => {
    sub.subscribe(channel).then(
      () => listener.onLive(),
      (err: unknown) => {
        // The connection failed again; 'close' has made us blind and the next 'ready' retries.
        if (!closing) logger.warn({ err: (err as Error).message }, 'invalidation subscribe failed');
      },
    );
  });
  sub.on('close', () => listener.onBlind());
  sub.on('error', (err: Error) => {
    const now = Date.now();
    if (closing || now - lastErrorLogAt < 10_000) return;
    lastErrorLogAt = now;
    logger.warn({ err: err.message }, 'invalidation subscriber: redis connection error');
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
