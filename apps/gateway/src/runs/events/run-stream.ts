import type { ServerResponse } from 'node:http';
import { nodeEventId, openingEventId, recordEventId, START, type Cursor, type LastEventId } from './event-ids';
import type { RunBatch } from './run-batch';

/** What a stream needs of the run it follows (run-feed.ts). */
export interface StreamOwner {
  /** The stream can take events again (its client drained what it had): read the run for it. */
  wantsRead(stream: RunStream): void;
  /** The response is over: forget the stream. */
  closed(stream: RunStream): void;
}

const HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  // nginx (and proxies that follow it) would otherwise hold events back to fill its buffer.
  'X-Accel-Buffering': 'no',
};

// How long an EventSource waits before it reconnects when the stream drops.
const RETRY = 'retry: 1000\n\n';
const KEEP_ALIVE = ': keep-alive\n\n';

const event = (name: string, id: string, data: string) => `id: ${id}\nevent: ${name}\ndata: ${data}\n\n`;

/** Where a cursor sits among the node changes of its version. */
const rankOf = (cursor: Cursor, batch: RunBatch) =>
  cursor.node === null ? Number.POSITIVE_INFINITY : batch.rankOf(cursor.node);

/**
 * One client following a run over Server-Sent Events. It keeps no queue of
 * events: only where its client is (the cursor of what it was sent), the
 * record it was last sent, and whether the run changed while it could not
 * send. Each batch it is given is a snapshot of the run; it sends what is new
 * to its client, in one write. While the client has not taken a write
 * (`res.write` answered false) it sends nothing, and once it drains, the run
 * is read again for it: a slow client gets the latest state, later, never a
 * growing buffer.
 */
export class RunStream {
  private state: 'opening' | 'open' | 'closed' = 'opening';
  /** The run changed while the stream could not send: it must be read again for it. */
  dirty = false;
  /** Since when a write waits for the client to take it (undefined: not waiting). */
  private waitingSince: number | undefined;
  private cursorRank = -1;
  private lastRecord: string | undefined;
  private cursor: Cursor;
  /** The run version its Last-Event-ID names (0 without one). */
  private readonly seen: number;

  constructor(
    private readonly res: ServerResponse,
    /** The Last-Event-ID it was opened with; undefined: from the start. */
    private readonly from: LastEventId | undefined,
    private readonly owner: StreamOwner,
  ) {
    this.cursor = from?.cursor ?? START;
    this.seen = from?.version ?? 0;
    res.once('close', () => this.close());
  }

  /** The run version from which its next read must bring node rows. */
  get since(): number {
    return this.cursor.version;
  }

  /** Whether it can send now: open and not waiting for its client. */
  get ready(): boolean {
    return this.state === 'open' && this.waitingSince === undefined;
  }

  /** Whether the cursor it was opened with fits the run `batch` is of (otherwise: 422, nothing sent). */
  fits(batch: RunBatch): boolean {
    return rankOf(this.cursor, batch) !== undefined && this.seen <= batch.version;
  }

  /**
   * Answers 200 and sends the first events: `run`, then what the client has
   * not had. A change announced while it opened (it is dirty) may be newer
   * than `batch`, its own read: it stays dirty, and its feed reads the run
   * again for it (RunFeed.opened).
   */
  start(batch: RunBatch): void {
    this.cursorRank = rankOf(this.cursor, batch)!;
    this.res.writeHead(200, HEADERS);
    if (this.res.req.method === 'HEAD') {
      // A HEAD has its answer: a stream that sends nothing would hold its connection for good.
      this.res.end();
      this.close();
      return;
    }
    this.state = 'open';
    this.send(batch, RETRY);
  }

  /** A new read of the run: sends what is new, or remembers to ask for it once it can. */
  deliver(batch: RunBatch): void {
    if (this.state === 'closed') return;
    if (!this.ready || this.cursor.version < batch.since) {
      this.dirty = true;
      return;
    }
    this.dirty = false;
    this.send(batch, '');
  }

  private send(batch: RunBatch, head: string): void {
    let out = head;
    let cursor = this.cursor;
    const first = this.lastRecord === undefined;
    if (first) {
      // Opened on a run that has ended and without Last-Event-ID: the record says all, twice: `run`, then `end`.
      if (this.from === undefined && batch.ended) {
        cursor = { version: batch.version, node: null };
        this.cursorRank = Number.POSITIVE_INFINITY;
      }
      out += event('run', openingEventId(batch.version, cursor), batch.record);
    }
    for (const node of batch.nodes) {
      if (node.version < cursor.version || (node.version === cursor.version && node.rank <= this.cursorRank)) {
        continue;
      }
      cursor = { version: node.version, node: node.nodeId };
      this.cursorRank = node.rank;
      out += event('node', nodeEventId(node.version, node.nodeId), node.data);
    }
    if (batch.ended) {
      out += event('end', recordEventId(batch.version), batch.record);
    } else if (!first && batch.record !== this.lastRecord) {
      out += event('run', recordEventId(batch.version), batch.record);
    }
    // The client has every change up to this read's version now, whether or not the record was sent again.
    this.cursor = { version: batch.version, node: null };
    this.cursorRank = Number.POSITIVE_INFINITY;
    this.lastRecord = batch.record;
    if (batch.ended) {
      this.res.end(out);
      this.close();
      return;
    }
    if (out !== '') this.write(out);
  }

  /**
   * A delta (`data`: its JSON), sent as it comes and without an id: it is not
   * a change of the run, and a reconnecting client resumes after the last
   * change it had. Dropped while the client has not taken what was written
   * (it sees a gap in `index`): the text is in the node's output anyway.
   */
  delta(data: string): void {
    if (this.ready) this.write(`event: delta\ndata: ${data}\n\n`);
  }

  /** The comment that keeps an idle connection (and every proxy on its way) open. */
  keepAlive(): void {
    if (this.ready) this.write(KEEP_ALIVE);
  }

  /** How long its client has not taken what was written (0: not waiting). */
  stalledFor(now: number): number {
    return this.waitingSince === undefined ? 0 : now - this.waitingSince;
  }

  /** Whether the response is over (the client left, the run ended, or the stream was ended). */
  get closed(): boolean {
    return this.state === 'closed';
  }

  /**
   * Ends the response without `end`: its client reconnects, to this instance
   * or another. Resolves once the response is over.
   */
  end(): Promise<void> {
    if (this.state !== 'open') {
      // Still opening: its handler finds it closed and answers with an error instead.
      this.close();
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.res.once('close', () => resolve());
      this.res.end();
      this.close();
    });
  }

  /** Gives up on a client that takes nothing: the connection is cut. */
  destroy(): void {
    this.res.destroy();
    this.close();
  }

  private write(chunk: string): void {
    if (this.res.write(chunk)) return;
    this.waitingSince = Date.now();
    this.res.once('drain', () => {
      this.waitingSince = undefined;
      if (this.dirty && this.state === 'open') this.owner.wantsRead(this);
    });
  }

  private close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.owner.closed(this);
  }
}
