import type { ServerResponse } from 'node:http';
import { listenForRunChanges, listenForRunDeltas, runVersions, type RunDeltaListener } from '@weft/engine';
import { ClientClosedRequestError, invalid, NotFoundError, ServiceUnavailableError } from '@weft/errors';
import type { RedisClient } from '@weft/queue';
import type { RunKind } from '../run-kind';
import { LAST_EVENT_ID_LOC, NOT_AN_EVENT_ID, type LastEventId } from './event-ids';
import { RunFeed, type FeedContext } from './run-feed';
import { RunStream } from './run-stream';

export interface RunEventHubOptions extends FeedContext {
  /** A connection of its own, for SUBSCRIBE. */
  subscriber: RedisClient;
  redisPrefix: string;
  /** How often idle streams get a comment line, and the runs followed are checked against PostgreSQL. */
  keepAliveMs: number;
}

/**
 * The event streams of runs open on this gateway instance
 * (docs/api.md#following-a-run-live), by run. PostgreSQL is the record:
 * every event is read from it. What tells the hub to read is the engine's
 * message after each commit that changed a run (Redis pub/sub, so a change
 * made through any instance or worker reaches every instance); messages
 * lost while the subscription was down are made up for by reading every run
 * followed when it comes back, and, at each keep-alive, reading the runs
 * whose version moved past what their streams were sent.
 *
 * Deltas (text a node produces as it comes) are not in PostgreSQL: each run
 * followed here has its Redis channel subscribed while it has streams, and
 * each delta goes to its streams as it arrives, without an id.
 */
export class RunEventHub {
  private readonly feeds = new Map<string, RunFeed>();
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private closing = false;
  private readonly deltas: RunDeltaListener;

  constructor(private readonly options: RunEventHubOptions) {
    this.deltas = listenForRunDeltas(options.subscriber, options.redisPrefix, (runId, message) =>
      this.feeds.get(runId)?.delta(message),
    );
  }

  /** Streams open on this instance. */
  get size(): number {
    let n = 0;
    for (const feed of this.feeds.values()) n += feed.streams.size;
    return n;
  }

  /** Streams of run `runId` open on this instance that have sent their first events (and get its deltas). */
  sending(runId: string): number {
    let n = 0;
    for (const stream of this.feeds.get(runId)?.streams ?? []) if (stream.ready) n++;
    return n;
  }

  /** Subscribes to run changes and starts the keep-alive. Resolves once subscribed. */
  async start(): Promise<void> {
    const { subscriber, keepAliveMs } = this.options;
    let connected = subscriber.status === 'ready';
    subscriber.on('ready', () => {
      // A reconnection: changes announced while the subscription was down were missed.
      if (connected) for (const feed of this.feeds.values()) feed.refresh();
      connected = true;
    });
    this.timer = setInterval(() => void this.tick(), keepAliveMs);
    this.timer.unref();
    await listenForRunChanges(subscriber, this.options.redisPrefix, (change) => {
      const feed = this.feeds.get(change.id);
      if (feed && change.version > feed.version) feed.refresh();
    });
  }

  /**
   * Opens the stream of run `runId` of `kind` for `orgId` on `res`, from
   * `from` (a Last-Event-ID) or the start. Throws, before answering anything,
   * what GET of the run would (404), and 422 for a Last-Event-ID that is not
   * an event of this run; otherwise answers 200 and sends the first events.
   */
  async open(
    kind: RunKind,
    orgId: string,
    runId: string,
    from: LastEventId | undefined,
    res: ServerResponse,
  ): Promise<void> {
    if (this.closing) throw new ServiceUnavailableError('This gateway instance is shutting down: reconnect', 1);
    let feed = this.feeds.get(runId);
    if (!feed) {
      const created = new RunFeed(runId, this.options, (empty) => {
        if (this.feeds.get(empty.runId) !== empty) return;
        this.feeds.delete(empty.runId);
        this.deltas.unfollow(empty.runId);
      });
      const following = this.deltas.follow(runId).catch((err: unknown) => {
        // The stream goes on without deltas: its events come from PostgreSQL.
        this.options.logger.warn({ err, runId }, 'run events: subscribing to the deltas of a run failed');
      });
      // While Redis is away the subscription waits for it; the stream does not.
      if (this.options.subscriber.status === 'ready') created.deltasFollowed = following;
      feed = created;
      this.feeds.set(runId, feed);
    }
    // Registered before the read: a change committed after it is announced to this stream too.
    const stream = new RunStream(res, from, feed);
    feed.streams.add(stream);
    try {
      // Subscribed before the first event: a client that has it gets every delta published after.
      const [batch] = await Promise.all([feed.read(kind, orgId, stream.since), feed.deltasFollowed]);
      if (!batch) throw new NotFoundError('Run');
      if (!stream.fits(batch)) throw invalid(LAST_EVENT_ID_LOC, NOT_AN_EVENT_ID, 'value_error');
      if (stream.closed) {
        if (this.closing) throw new ServiceUnavailableError('This gateway instance is shutting down: reconnect', 1);
        throw new ClientClosedRequestError();
      }
      stream.start(batch);
      feed.opened(stream, kind, orgId);
    } catch (err) {
      void stream.end();
      throw err;
    }
  }

  /**
   * Ends every stream (without `end`: their clients reconnect, to another
   * instance) and refuses new ones. Resolves once their responses are over.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const ending: Promise<void>[] = [];
    for (const feed of this.feeds.values()) for (const stream of [...feed.streams]) ending.push(stream.end());
    await Promise.all(ending);
  }

  private async tick(): Promise<void> {
    const now = Date.now();
    for (const feed of this.feeds.values()) {
      for (const stream of [...feed.streams]) {
        // A client that took nothing for two keep-alives is cut off; it resumes when it comes back.
        if (stream.stalledFor(now) >= 2 * this.options.keepAliveMs) stream.destroy();
        else stream.keepAlive();
      }
    }
    if (this.checking || this.feeds.size === 0) return;
    this.checking = true;
    try {
      const versions = await runVersions(this.options.pool, [...this.feeds.keys()]);
      for (const feed of this.feeds.values()) {
        const version = versions.get(feed.runId);
        if (feed.stale || version === undefined || version > feed.version) feed.refresh();
      }
    } catch (err) {
      this.options.logger.warn({ err }, 'run events: checking the runs followed failed');
    } finally {
      this.checking = false;
    }
  }
}
