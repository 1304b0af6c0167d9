// ioredis's errors for a connection that is down: commands refused while it
// reconnects (no offline queue), given up after `maxRetriesPerRequest`
// reconnections, flushed when the connection closed, or left unanswered.
const REDIS_CONNECTION_MESSAGES = [
  "Stream isn't writeable",
  'Connection is closed',
  'Reached the max retries per request limit',
  'Socket timeout',
  // commandTimeout: sent, and no answer in time.
  'Command timed out',
];

/** The error says Redis could not be reached or dropped the connection, not that the command was wrong. */
export function isRedisUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 8) return false;
  const { name, message, cause } = err as { name?: unknown; message?: unknown; cause?: unknown };
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && REDIS_CONNECTION_MESSAGES.some((m) => message.includes(m))) return true;
  return isRedisUnavailable(cause, depth + 1);
}
