import net from 'node:net';
import { Readable } from 'node:stream';
import tls from 'node:tls';

// GETs of presigned URLs whose body bytes go from the store's socket to the
// reader as they arrive (ADR 0017). Node's http client copies every chunk of
// a response body out of the socket's buffer in its parser (a second 64 KiB
// allocation and memcpy per read), then passes it through IncomingMessage: in
// a gateway relaying a download, that is half of its CPU per MiB. Here the
// response head is parsed by hand, and the body (framed by Content-Length,
// as S3 frames GetObject) is the socket's own chunks. Anything else (chunked
// or unframed bodies, 1xx, HTTP/1.0 without a length) is not read here: the
// caller sends the request again through Node's http client.
//
// The socket reads into buffers of ours (`onread`, ADR 0020), not through its
// own stream: by default Node gives every read a zero-filled 64 KiB buffer,
// copies a partly filled one into one of the exact size, and passes each
// chunk through the socket's Readable before the body's. Here a read lands in
// an uninitialised buffer whose filled part is the chunk, handed straight to
// whoever holds the connection (an exchange, or the pool while it is idle).

export interface StoreResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Exactly the body's Content-Length bytes; destroying it early closes the connection. */
  body: Readable;
}

export interface ObjectReaderOptions {
  /**
   * A request with no byte in either direction for this long fails with a
   * TimeoutError; time while the body waits for its reader does not count.
   */
  timeoutMs: number;
  /** How long an idle connection is kept for the next read (below the store's own idle timeout). */
  keepIdleMs?: number;
  /** TLS options for https: endpoints (tests pass a CA). */
  tls?: tls.ConnectionOptions;
}

export interface ObjectReader {
  /**
   * Sends `GET url` with `headers`; answers the response once its head has
   * arrived, or `undefined` when its body is framed in a way this reader does
   * not read (the caller then uses Node's http client).
   */
  get(url: URL, headers: Record<string, string>, what: string): Promise<StoreResponse | undefined>;
  /** Open connections: reading a response, and idle in the pool. */
  connections(): { busy: number; idle: number };
  close(): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
/** Idle connections kept per store origin: as many as reads commonly overlap. */
const MAX_IDLE_PER_ORIGIN = 32;
const HEAD_END = Buffer.from('\r\n\r\n');
/** What one read of a store connection takes at most: libuv's own size for a read. */
const READ_BYTES = 64 * 1024;
/**
 * A read shorter than this is copied out and its buffer read into again, so
 * that a chunk never holds more than 4 times its length (a store far away
 * sends in small bursts); a longer one travels on in its buffer.
 */
const COPIED_READ_BYTES = READ_BYTES / 4;

/** Takes the bytes of each read of a connection: the exchange using it, or the pool's idle watch. */
type ChunkSink = (chunk: Buffer) => void;

export function createObjectReader(options: ObjectReaderOptions): ObjectReader {
  const keepIdleMs = options.keepIdleMs ?? 4_000;
  const idle = new Map<string, net.Socket[]>();
  const open = new Set<net.Socket>();
  const idleHandlers = new WeakMap<net.Socket, () => void>();
  const sinks = new WeakMap<net.Socket, ChunkSink>();
  let closed = false;

  function connect(url: URL): net.Socket {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A read's filled part travels on as the chunk, so the next read lands in
    // a new buffer, unless the chunk was copied out of it. allocUnsafe skips
    // the zero fill: only the filled part is ever looked at.
    let reusable: Buffer | undefined;
    const onread: net.OnReadOpts = {
      buffer: () => {
        const next = reusable ?? Buffer.allocUnsafe(READ_BYTES);
        reusable = undefined;
        return next;
      },
      callback: (size: number, buffer: Uint8Array) => {
        const read = buffer as Buffer;
        let chunk = read.subarray(0, size);
        if (size < COPIED_READ_BYTES) {
          chunk = Buffer.from(chunk);
          reusable = read;
        }
        sinks.get(socket)?.(chunk);
        return true;
      },
    };
    const socket: net.Socket =
      url.protocol === 'https:'
        ? tls.connect(tlsOptions(host, Number(url.port || 443), onread, options.tls))
        : net.connect({ port: Number(url.port || 80), host, onread });
    socket.setNoDelay(true);
    // Errors are reported by the exchange using the socket; between exchanges
    // (a late EPIPE after a destroy) they must not become uncaught.
    socket.on('error', () => undefined);
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      const list = idle.get(url.origin);
      const at = list?.indexOf(socket) ?? -1;
      if (at >= 0) list!.splice(at, 1);
    });
    return socket;
  }

  /** An idle connection to the origin (unless `fresh`), or a new one; `reused` tells which. */
  function acquire(url: URL, fresh: boolean): { socket: net.Socket; reused: boolean } {
    const list = fresh ? undefined : idle.get(url.origin);
    for (let socket = list?.pop(); socket; socket = list?.pop()) {
      const onIdle = idleHandlers.get(socket);
      if (onIdle) socket.off('end', onIdle).setTimeout(0, onIdle);
      if (!socket.destroyed && socket.readable && socket.writable) {
        socket.ref();
        return { socket, reused: true };
      }
      socket.destroy();
    }
    return { socket: connect(url), reused: false };
  }

  function release(url: URL, socket: net.Socket): void {
    const list = idle.get(url.origin) ?? [];
    if (closed || list.length >= MAX_IDLE_PER_ORIGIN || socket.destroyed) {
      socket.destroy();
      return;
    }
    // While idle the store speaks only to close: any byte, its end or the end
    // of the idle time closes the connection.
    let onIdle = idleHandlers.get(socket);
    if (!onIdle) {
      onIdle = () => void socket.destroy();
      idleHandlers.set(socket, onIdle);
    }
    sinks.set(socket, onIdle);
    socket.on('end', onIdle).setTimeout(keepIdleMs, onIdle);
    socket.unref();
    socket.resume();
    list.push(socket);
    idle.set(url.origin, list);
  }

  async function get(url: URL, headers: Record<string, string>, what: string): Promise<StoreResponse | undefined> {
    if (closed) throw new Error(`${what}: the storage client is closed`);
    const request = requestHead(url, headers);
    const attempt = (retried: boolean): Promise<StoreResponse | undefined> => {
      const { socket, reused } = acquire(url, retried);
      return exchange(
        socket,
        (sink) => sinks.set(socket, sink),
        request,
        what,
        options.timeoutMs,
        (reusable) => (reusable ? release(url, socket) : socket.destroy()),
      ).catch((err: unknown) => {
        // The store may close an idle connection just as it is taken from the
        // pool: a GET that got no byte back is sent again on a new connection.
        if (reused && !retried && (err as ExchangeError).beforeAnswer) return attempt(true);
        throw err;
      });
    };
    return attempt(false);
  }

  return {
    get,
    connections() {
      let idleCount = 0;
      for (const list of idle.values()) idleCount += list.length;
      // A destroyed socket leaves `open` on its 'close' event, a tick later.
      let live = 0;
      for (const socket of open) if (!socket.destroyed) live++;
      return { busy: live - idleCount, idle: idleCount };
    },
    close() {
      closed = true;
      for (const socket of open) socket.destroy();
      idle.clear();
    },
  };
}

/** tls.connect's options; Node reads `onread` there as net.connect does, though its types leave it out. */
function tlsOptions(
  host: string,
  port: number,
  onread: net.OnReadOpts,
  extra: tls.ConnectionOptions | undefined,
): tls.ConnectionOptions {
  const options: tls.ConnectionOptions & { onread: net.OnReadOpts } = {
    host,
    port,
    ...(net.isIP(host) ? {} : { servername: host }),
    ALPNProtocols: ['http/1.1'],
    onread,
    ...extra,
  };
  return options;
}

function requestHead(url: URL, headers: Record<string, string>): string {
  const lines = [`GET ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value)) {
      throw new TypeError(`Invalid header ${JSON.stringify(name)} for a store request`);
    }
    lines.push(`${name}: ${value}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** The sink of a connection between its exchange's end and its release (or destruction). */
const ignore: ChunkSink = () => undefined;

interface ExchangeError extends Error {
  code?: string;
  /** Nothing came back: the request may be sent again. */
  beforeAnswer?: boolean;
}

function connectionError(message: string, beforeAnswer: boolean): ExchangeError {
  return Object.assign(new Error(message), { code: 'ECONNRESET', beforeAnswer });
}

interface Head {
  status: number;
  headers: Record<string, string>;
  /** The body's length, when it is framed by Content-Length. */
  length: number | undefined;
  keepAlive: boolean;
}

function parseHead(text: string): Head | undefined {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(statusLine);
  if (!status) return undefined;
  // No prototype: a header named `constructor` or `__proto__` is just a header.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const declared = headers['content-length'];
  const length =
    declared !== undefined && /^\d+$/.test(declared) && headers['transfer-encoding'] === undefined
      ? Number(declared)
      : undefined;
  const connection = (headers.connection ?? '').toLowerCase();
  const keepAlive = status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
  return { status: Number(status[2]), headers, length, keepAlive };
}

/**
 * One request and its response on `socket`, whose reads go to the sink given
 * to `take`. `done(reusable)` is called once the socket is no longer this
 * exchange's: reusable when the whole body was read and the store keeps the
 * connection open.
 */
function exchange(
  socket: net.Socket,
  take: (sink: ChunkSink) => void,
  request: string,
  what: string,
  timeoutMs: number,
  done: (reusable: boolean) => void,
): Promise<StoreResponse | undefined> {
  return new Promise((resolve, reject) => {
    let received: Buffer[] = [];
    let receivedBytes = 0;
    let body: Readable | undefined;
    let remaining = 0;
    let finished = false;

    const finish = (reusable: boolean) => {
      if (finished) return;
      finished = true;
      socket.off('end', onEnd).off('close', onEnd).off('error', onError).off('timeout', onTimeout);
      socket.setTimeout(0);
      take(ignore);
      done(reusable);
    };
    const fail = (err: ExchangeError) => {
      finish(false);
      if (body) body.destroy(err);
      else reject(err);
    };
    const onError = (err: ExchangeError) => {
      err.beforeAnswer = receivedBytes === 0;
      fail(err);
    };
    const onEnd = () => {
      fail(
        body
          ? connectionError(`${what}: the store closed the connection ${remaining} bytes short of the body`, false)
          : connectionError(`${what}: the store closed the connection without an answer`, receivedBytes === 0),
      );
    };
    // The idle timeout measures the store. While the body is paused because
    // its reader (a slow client) is behind, the store is not the one idle: a
    // timeout then only notes that the timer must be armed again on resuming.
    let paused = false;
    let timedOutWhilePaused = false;
    const onTimeout = () => {
      if (paused) timedOutWhilePaused = true;
      else fail(Object.assign(new Error(`${what} timed out`), { name: 'TimeoutError' }));
    };

    const onBody = (chunk: Buffer, keepAlive: boolean) => {
      if (chunk.length > remaining) {
        // Bytes past the body: the connection cannot be trusted for another request.
        body!.push(chunk.subarray(0, remaining));
        remaining = 0;
        finish(false);
        body!.push(null);
        return;
      }
      remaining -= chunk.length;
      const more = body!.push(chunk);
      if (remaining === 0) {
        finish(keepAlive);
        body!.push(null);
      } else if (!more) {
        paused = true;
        socket.pause();
      }
    };

    let head: Head | undefined;
    const onData = (chunk: Buffer) => {
      receivedBytes += chunk.length;
      if (body) {
        onBody(chunk, head!.keepAlive);
        return;
      }
      received.push(chunk);
      const all = received.length === 1 ? chunk : Buffer.concat(received);
      const end = all.indexOf(HEAD_END);
      if (end < 0) {
        if (all.length > MAX_HEAD_BYTES) fail(connectionError(`${what}: the store's answer has no end of head`, false));
        received = [all];
        return;
      }
      received = [];
      head = parseHead(all.subarray(0, end).toString('latin1'));
      if (!head || head.length === undefined || head.status < 200) {
        finish(false);
        resolve(undefined);
        return;
      }
      remaining = head.length;
      body = new Readable({
        read: () => {
          if (finished || !paused) return;
          paused = false;
          if (timedOutWhilePaused) {
            timedOutWhilePaused = false;
            socket.setTimeout(timeoutMs);
          }
          socket.resume();
        },
        destroy: (err, callback) => {
          // Destroyed before its end (the reader gave up): the rest of the body is still on the wire.
          if (remaining > 0) finish(false);
          callback(err);
        },
      });
      resolve({ status: head.status, headers: head.headers, body });
      const rest = all.subarray(end + HEAD_END.length);
      if (rest.length > 0 || remaining === 0) onBody(rest, head.keepAlive);
    };

    take(onData);
    socket.on('end', onEnd).on('close', onEnd).on('error', onError).on('timeout', onTimeout);
    socket.setTimeout(timeoutMs);
    socket.write(request, 'latin1');
  });
}
