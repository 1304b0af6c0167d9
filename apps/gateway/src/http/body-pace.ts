import type http from 'node:http';

// Node's own guard on request bodies, `requestTimeout` (300 s by default),
// ends any request whose body has not fully arrived within that time: a 100
// MiB upload slower than 2.8 Mbit/s got a 408, and a larger
// ASSET_MAX_UPLOAD_BYTES could not be used at all. It also counted the time
// the gateway itself holds a body back (an upload waiting for memory, a slow
// store). This watcher replaces it with what nginx and Apache's
// mod_reqtimeout check: the client must keep sending, and on average not too
// slowly, while the gateway reads. A client that trickles a byte a minute
// would otherwise hold an upload's memory reservation for as long as it likes.

export interface BodyPaceOptions {
  /** No body byte for this long, while the gateway reads the body: 408. */
  stallMs: number;
  /**
   * Past its first `stallMs` of reading, a body must have come at this
   * average at least, over the time the gateway was reading it: 408.
   */
  minBytesPerSecond: number;
  /** How often bodies in progress are checked (default: a quarter of `stallMs`, at most 1 s). */
  checkEveryMs?: number;
  /** Told of each body given up, and why. */
  onTimeout?(req: http.IncomingMessage, why: string): void;
}

interface Watched {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  /** The socket's bytesRead when the request began (a keep-alive socket carries earlier requests). */
  startBytes: number;
  lastBytes: number;
  lastProgressAt: number;
  /** Time during which the gateway was taking the body (not holding it back). */
  readingMs: number;
  lastCheckAt: number;
}

const timedOut = new WeakSet<http.IncomingMessage>();

/** Whether this request's body was given up (and answered 408) by the watcher: errors its handler meets afterwards are expected. */
export function bodyTimedOut(req: http.IncomingMessage): boolean {
  return timedOut.has(req);
}

/** Watches the bodies of `server`'s requests (those that have one) and turns off Node's requestTimeout. */
export function watchBodyPace(server: http.Server, options: BodyPaceOptions): void {
  server.requestTimeout = 0;
  const watched = new Set<Watched>();
  const checkEveryMs = options.checkEveryMs ?? Math.min(1000, options.stallMs / 4);
  let timer: NodeJS.Timeout | undefined;

  const check = () => {
    const now = Date.now();
    for (const w of watched) {
      const { req } = w;
      if (req.complete || req.destroyed) {
        watched.delete(w);
        continue;
      }
      const bytes = req.socket.bytesRead - w.startBytes;
      // Flowing: a consumer takes the body as it comes, so any wait is the
      // client's. Paused (a consumer's backpressure) or not yet consumed (an
      // upload waiting for memory): the gateway is holding it back.
      const reading = req.readableFlowing === true;
      if (reading) w.readingMs += now - w.lastCheckAt;
      w.lastCheckAt = now;
      if (bytes !== w.lastBytes || !reading) {
        w.lastBytes = bytes;
        w.lastProgressAt = now;
      }
      if (now - w.lastProgressAt >= options.stallMs) {
        giveUp(w, `no byte for ${options.stallMs / 1000} s`);
      } else if (
        w.readingMs > options.stallMs &&
        bytes < (options.minBytesPerSecond * (w.readingMs - options.stallMs)) / 1000
      ) {
        giveUp(w, `slower than ${options.minBytesPerSecond} bytes per second`);
      }
    }
    if (watched.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const giveUp = (w: Watched, why: string) => {
    watched.delete(w);
    const { req, res } = w;
    timedOut.add(req);
    options.onTimeout?.(req, why);
    if (res.headersSent) {
      req.destroy();
      return;
    }
    // Answered here, as Node's requestTimeout answers: the handler is still
    // waiting for the body, which now ends in an abort (its cleanup runs).
    const body = JSON.stringify({ detail: `Request body timed out: ${why}` });
    res.writeHead(408, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    // Closed once the answer is out, or after a few seconds if the client does not take it.
    const fallback = setTimeout(() => req.destroy(), 5000);
    fallback.unref();
    res.end(body, () => {
      clearTimeout(fallback);
      req.destroy();
    });
  };

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    // Requests without a body (most: every GET) cost one header look-up.
    const length = req.headers['content-length'];
    if (length === undefined ? req.headers['transfer-encoding'] === undefined : length === '0') return;
    const now = Date.now();
    const startBytes = req.socket.bytesRead;
    watched.add({ req, res, startBytes, lastBytes: 0, lastProgressAt: now, readingMs: 0, lastCheckAt: now });
    if (!timer) {
      timer = setInterval(check, checkEveryMs);
      timer.unref();
    }
  });
}
