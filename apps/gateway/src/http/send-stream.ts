import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * Sends `body` as the response's content; resolves when the response is over,
 * whichever way it ended. A client that hangs up destroys `body` (releasing
 * what it reads from); a `body` that fails destroys the response, so the
 * client sees the connection close short of the Content-Length it was given
 * rather than a response that merely ends early.
 *
 * Written with `pipe` rather than `stream.pipeline`: pipeline aborts an
 * AbortController of its own when it finishes, and the DOMException that
 * creates captures a stack trace, for every download (about 40 µs of CPU
 * per request on this machine, a third of a small download's relay cost).
 */
export function sendStream(body: Readable, res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    body.on('error', (err) => res.destroy(err));
    res.once('close', () => {
      if (!body.readableEnded) body.destroy();
      resolve();
    });
    body.pipe(res);
  });
}
