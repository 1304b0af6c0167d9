import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { WeftError } from './errors';
import { isNetworkError, sleep } from './retry';
import { apiError, type Transport } from './transport';
import { hasEnded, RUN_PATHS, type AnyRun, type RunDelta, type RunKind } from './types';

// Following a run: its event stream (`GET /runs/{id}/events`, server-sent
// events), or polling `GET` of the run where the gateway has no stream.
//
// The stream's protocol: every event has an `id:` and one line of JSON `data:`.
// `run` carries the whole run record (the first event of every stream, a
// resumed one too), `node` a node's new state, `end` the final record, after
// which the server closes. A stream that closes without `end`, or a broken
// connection, is opened again with `Last-Event-ID`; events are snapshots, and a
// resumed stream sends every change after that id. `delta` events (text a node
// produces as it comes) have no id and are never sent again: a resumed stream
// goes on with the deltas published from then on.

/** A node's state, as a `node` event reports it. */
export interface NodeState {
  node_id: string;
  type: string;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  cost: number | null;
  error: string | null;
}

export type RunEvent<R extends AnyRun = AnyRun> =
  | { type: 'run'; run: R; id?: string }
  | { type: 'node'; node: NodeState; id?: string }
  | { type: 'end'; run: R; id?: string };

export interface FollowOptions {
  signal?: AbortSignal;
  /** Polling (where there is no stream): the first interval, grown by half while nothing changes (default 500 ms). */
  pollMinMs?: number;
  /** Polling: the longest interval (default 5 s). */
  pollMaxMs?: number;
  /** How long to wait before reopening a stream that closed without `end` (default 1 s). */
  reconnectDelayMs?: number;
  /** A stream silent this long is taken as dead and reopened (default 45 s; the server sends a keep-alive every 15 s). */
  idleTimeoutMs?: number;
}

export interface RunSource {
  transport: Transport;
  getRun(kind: RunKind, id: string, signal?: AbortSignal): Promise<AnyRun>;
}

/** After this many streams in a row that close without one event, the stream is given up for polling. */
const EMPTY_STREAMS_BEFORE_POLLING = 3;

/** A run's event or, for a follower that asked for them, one of its deltas. */
export type StreamEvent = RunEvent | { type: 'delta'; delta: RunDelta };

/** The events of a run until it ends; the last one is always `end`. */
export function followRun(
  source: RunSource,
  kind: RunKind,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  return followStream(source, kind, runId, options, false) as AsyncGenerator<RunEvent, void, undefined>;
}

/**
 * The events of a run until it ends, with its deltas when `deltas` is true (a
 * polled run has none).
 */
export async function* followStream(
  source: RunSource,
  kind: RunKind,
  runId: string,
  options: FollowOptions,
  deltas: boolean,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { signal } = options;
  let lastEventId: string | undefined;
  let emptyStreams = 0;
  for (;;) {
    const connection = new AbortController();
    const stop = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const response = await source.transport.send({
        method: 'GET',
        path: `${RUN_PATHS[kind]}/${encodeURIComponent(runId)}/events`,
        headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
        signal: connection.signal,
        timeoutMs: false,
      });
      if (!(await streamServed(source, kind, runId, response, signal))) {
        yield* pollRun(source, kind, runId, options);
        return;
      }
      let received = 0;
      for await (const message of readEvents(response, connection, options.idleTimeoutMs ?? 45_000)) {
        // Every id counts, also an event this client skips: the server resumes after it.
        if (message.id) lastEventId = message.id;
        if (message.event === 'delta') {
          received++;
          if (deltas) yield { type: 'delta', delta: parseData(message) as RunDelta };
          continue;
        }
        const event = toRunEvent(message);
        if (!event) continue;
        received++;
        yield event;
        if (event.type === 'end') return;
      }
      emptyStreams = received === 0 ? emptyStreams + 1 : 0;
      if (emptyStreams >= EMPTY_STREAMS_BEFORE_POLLING) {
        yield* pollRun(source, kind, runId, options);
        return;
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      // A stream cut short (or declared dead by the idle timer) is resumed; anything else is reported.
      if (!isNetworkError(err) && !connection.signal.aborted) throw err;
    } finally {
      signal?.removeEventListener('abort', stop);
      connection.abort();
    }
    await sleep(options.reconnectDelayMs ?? 1000, signal);
  }
}

/**
 * Whether the answer is an event stream to read. A 405 or 501, or a 404 for a
 * run that `GET` finds, means this gateway has no stream for it: poll instead.
 */
async function streamServed(
  source: RunSource,
  kind: RunKind,
  runId: string,
  response: Response,
  signal?: AbortSignal,
): Promise<boolean> {
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && type.startsWith('text/event-stream')) return true;
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 404) {
    await source.getRun(kind, runId, signal); // throws the run's own 404 when it does not exist
    return false;
  }
  if (response.status === 405 || response.status === 501 || response.ok) return false;
  throw await apiError('GET', response);
}

/** The server-sent events of a response, as they arrive. */
async function* readEvents(
  response: Response,
  connection: AbortController,
  idleTimeoutMs: number,
): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const decoder = new TextDecoder();
  let idle = setTimeout(() => connection.abort(), idleTimeoutMs);
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(), idleTimeoutMs);
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    clearTimeout(idle);
  }
}

function parseData(message: EventSourceMessage): unknown {
  try {
    return JSON.parse(message.data);
  } catch {
    throw new WeftError(
      `The event stream sent a ${message.event} event whose data is not JSON: ${message.data.slice(0, 200)}`,
    );
  }
}

function toRunEvent(message: EventSourceMessage): RunEvent | undefined {
  const type = message.event;
  if (type !== 'run' && type !== 'node' && type !== 'end') return undefined; // unknown events are skipped
  const data = parseData(message);
  const id = message.id;
  if (type === 'node') return { type, node: data as NodeState, ...(id ? { id } : {}) };
  return { type, run: data as AnyRun, ...(id ? { id } : {}) };
}

/**
 * Polls `GET` of the run: a `run` event for the first answer and each change,
 * then `end`. The interval grows while nothing changes and shrinks back on a change.
 */
export async function* pollRun(
  source: RunSource,
  kind: RunKind,
  runId: string,
  options: FollowOptions = {},
): AsyncGenerator<RunEvent, void, undefined> {
  const min = options.pollMinMs ?? 500;
  const max = options.pollMaxMs ?? 5000;
  let interval = min;
  let previous: string | undefined;
  for (;;) {
    const run = await source.getRun(kind, runId, options.signal);
    const snapshot = JSON.stringify(run);
    if (snapshot !== previous) {
      previous = snapshot;
      yield { type: 'run', run };
      interval = min;
    } else {
      interval = Math.min(max, Math.round(interval * 1.5));
    }
    if (hasEnded(run)) {
      yield { type: 'end', run };
      return;
    }
    await sleep(interval, options.signal);
  }
}
