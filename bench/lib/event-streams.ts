import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

// The clients of bench:events: run event streams (GET /runs/{id}/events)
// opened with node's http, one connection each, parsed with
// eventsource-parser, as an application following its runs would. Each event
// that reports a commit made after its stream was open is timed against the
// timestamp that commit wrote (PostgreSQL's now(), the same machine's clock).

/** Events received while recording, by event name, and keep-alive comments. */
export interface StreamCounts {
  run: number;
  node: number;
  end: number;
  keepAlives: number;
}

/** A node event's data (RunNodeEvent), as far as it is read here. */
interface NodeEventData {
  status: string;
  started_at: string | null;
  completed_at: string | null;
}

/**
 * The timestamp the commit an event reports wrote with now(): the run's
 * completed_at for `end`, the started_at of a node the commit dispatched, the
 * completed_at of a node it skipped. A settled node's completed_at is its
 * executor's end, before the commit: not a commit time, so not timed.
 */
function commitTimeOf(message: EventSourceMessage): number | undefined {
  if (message.event === 'end') {
    const at = (JSON.parse(message.data) as { completed_at: string | null }).completed_at;
    return at === null ? undefined : Date.parse(at);
  }
  if (message.event === 'node') {
    const node = JSON.parse(message.data) as NodeEventData;
    if (node.status === 'running' && node.started_at) return Date.parse(node.started_at);
    if (node.status === 'skipped' && node.completed_at) return Date.parse(node.completed_at);
  }
  return undefined;
}

export class EventStreamClients {
  /** Streams whose 200 is in and whose response is not over. */
  open = 0;
  /** Streams that answered something other than 200, or failed. */
  failures = 0;
  /** While true, live events are counted and timed. */
  recording = false;
  /** Commit → client delay of each timed event received while recording, in ms. */
  readonly delays: number[] = [];
  readonly counts: StreamCounts = { run: 0, node: 0, end: 0, keepAlives: 0 };
  private readonly requests = new Set<http.ClientRequest>();
  private readonly url: URL;

  constructor(
    base: string,
    private readonly headers: Record<string, string>,
  ) {
    this.url = new URL(base);
  }

  /**
   * Opens the stream of `runId`, a run of `nodeCount` nodes, from the start.
   * Resolves once its first write is in: `run`, then a `node` event for each
   * node (or `end` when the run has ended). Those report commits made before
   * the stream was open: they are neither counted nor timed. Rejects on
   * anything other than 200.
   */
  follow(runId: string, nodeCount: number): Promise<void> {
    return new Promise((resolve, reject) => {
      let receivedAt = 0;
      let snapshotNodes = 0;
      let live = false;
      const onEvent = (message: EventSourceMessage) => {
        if (!live) {
          if (message.event === 'node') snapshotNodes++;
          if (message.event === 'end' || snapshotNodes === nodeCount) {
            live = true;
            resolve();
          }
          return;
        }
        if (!this.recording) return;
        const name = message.event as 'run' | 'node' | 'end';
        if (name in this.counts) this.counts[name]++;
        const committedAt = commitTimeOf(message);
        if (committedAt !== undefined) this.delays.push(receivedAt - committedAt);
      };
      const parser = createParser({
        onEvent,
        onComment: () => {
          if (this.recording) this.counts.keepAlives++;
        },
      });
      const req = http.get(
        {
          host: this.url.hostname,
          port: this.url.port,
          path: `/runs/${runId}/events`,
          headers: { ...this.headers, accept: 'text/event-stream' },
          // One connection per stream, as separate clients have.
          agent: false,
        },
        (res) => {
          if (res.statusCode !== 200) {
            this.failures++;
            res.resume();
            reject(new Error(`GET /runs/${runId}/events: ${res.statusCode}`));
            return;
          }
          this.open++;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            receivedAt = Date.now();
            parser.feed(chunk);
          });
          res.once('close', () => {
            this.open--;
            this.requests.delete(req);
            if (!live) reject(new Error(`GET /runs/${runId}/events closed before its first events`));
          });
          res.on('error', () => undefined);
        },
      );
      this.requests.add(req);
      req.on('error', (err) => {
        this.failures++;
        this.requests.delete(req);
        reject(err);
      });
    });
  }

  /** Hangs up every stream still open, as clients going away. */
  closeAll(): void {
    for (const req of this.requests) req.destroy();
    this.requests.clear();
  }
}

/** Runs `task` over `items`, `concurrency` at a time. */
export async function inBatches<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** The value at quantile `q` of `sorted` (ascending). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}
