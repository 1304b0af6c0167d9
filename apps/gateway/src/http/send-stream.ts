import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/** Raised on a response whose client accepted no byte for the stall limit. */
export class StalledClientError extends Error {
  constructor(stallMs: number) {
    super(`the client accepted no byte for ${stallMs} ms`);
    this.name = 'StalledClientError';
  }
}

/**
 * Sends `body` as the response's content; resolves when the response is over,
 * whichever way it ended. A client that hangs up destroys `body` (releasing
 * what it reads from); a `body` that fails destroys the response, so the
 * client sees the connection close short of the Content-Length it was given
 * rather than a response that merely ends early.
 *
 * A client that stops reading (a paused player, a stalled download) holds the
 * body paused, and with it a connection to the store. After `stallMs` without
 * taking a byte the response is given up (`onStalled` is told); the client can
 * resume with a Range request. Time waiting on the store does not count.
 *
 * Written with `pipe` rather than `stream.pipeline`: pipeline aborts an
 * AbortController of its own when it finishes, and the DOMException that
 * creates captures a stack trace, for every download (about 40 µs of CPU
 * per request on this machine, a third of a small download's relay cost).
 */
export function sendStream(
  body: Readable,
  res: ServerResponse,
  stallMs: number,
  onStalled: (err: StalledClientError) => void,
): Promise<void> {
  return new Promise((resolve) => {
    // One timer per stall window rather than one per pause: a large download
    // pauses and resumes thousands of times.
    let pausedAt: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      timer = undefined;
      if (pausedAt === undefined) return;
      const waited = Date.now() - pausedAt;
      if (waited < stallMs) {
        timer = setTimeout(check, stallMs - waited);
        return;
      }
      const err = new StalledClientError(stallMs);
      onStalled(err);
      res.destroy(err);
    };
    body.on('pause', () => {
      pausedAt = Date.now();
      timer ??= setTimeout(check, stallMs);
    });
    body.on('resume', () => (pausedAt = undefined));
    body.on('error', (err) => res.destroy(err));
    res.once('close', () => {
      if (timer) clearTimeout(timer);
      if (!body.readableEnded) body.destroy();
      resolve();
    });
    body.pipe(res);
  });
}
