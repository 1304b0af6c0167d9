import { readRunChanges, type Engine } from '@weft/engine';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import type { RunKind } from '../run-kind';
import { runBatch, type RunBatch } from './run-batch';
import type { RunStream, StreamOwner } from './run-stream';

/** What reading a run takes. */
export interface FeedContext {
  pool: Pool;
  /** The agent versions runs are pinned to (the order of their nodes). */
  versions: Engine['versions'];
  logger: Logger;
}

/**
 * The streams of one run on this instance, and the reads of the run they
 * share. However many streams follow the run and however often it changes,
 * one read is in flight at a time; a change that arrives meanwhile makes one
 * more read once it is over. Each read brings the record and the node rows
 * changed since the earliest cursor among the streams ready to send, and
 * each stream takes what it has not sent.
 */
export class RunFeed implements StreamOwner {
  readonly streams = new Set<RunStream>();
  /** runs.version of the last read given to the streams (-1: none yet). */
  version = -1;
  /** The last read failed: the next check reads again, whatever the run's version. */
  stale = false;
  /** The run's kind and organization, as the first stream to open found them. */
  private scope: { kind: RunKind; orgId: string } | undefined;
  private reading = false;
  private again = false;
  /** Resolves once the run's deltas reach this instance (or that could not be arranged). */
  deltasFollowed: Promise<void> = Promise.resolve();

  constructor(
    readonly runId: string,
    private readonly ctx: FeedContext,
    private readonly onEmpty: (feed: RunFeed) => void,
  ) {}

  /** One read of the run as `orgId` sees it at `kind`'s path; undefined when it sees no such run. */
  async read(kind: RunKind, orgId: string, since: number): Promise<RunBatch | undefined> {
    const row = await readRunChanges(this.ctx.pool, orgId, this.runId, kind.name, since);
    if (!row) return undefined;
    const { graph } = await this.ctx.versions.version(row.agent_version_id);
    return runBatch(kind, row, graph, since);
  }

  /** A stream has sent its first events: what changed while it opened is read for it. */
  opened(stream: RunStream, kind: RunKind, orgId: string): void {
    this.scope ??= { kind, orgId };
    if (stream.dirty) this.refresh();
  }

  /** The run (may have) changed: read it for every stream. */
  refresh(): void {
    for (const stream of this.streams) stream.dirty = true;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.readWhileChanging().catch((err: unknown) =>
      this.ctx.logger.error({ err, runId: this.runId }, 'run events: sending the run to its streams failed'),
    );
  }

  /** A delta of the run (one line of JSON): to every stream that can send it now. */
  delta(message: string): void {
    for (const stream of this.streams) stream.delta(message);
  }

  wantsRead(): void {
    this.refresh();
  }

  closed(stream: RunStream): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.onEmpty(this);
  }

  private async readWhileChanging(): Promise<void> {
    this.reading = true;
    try {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again);
    } finally {
      this.reading = false;
    }
  }

  private async readOnce(): Promise<void> {
    const ready = [...this.streams].filter((s) => s.ready);
    if (ready.length === 0 || !this.scope) return;
    let batch: RunBatch | undefined;
    try {
      batch = await this.read(this.scope.kind, this.scope.orgId, Math.min(...ready.map((s) => s.since)));
    } catch (err) {
      this.stale = true;
      this.ctx.logger.warn({ err, runId: this.runId }, 'run events: reading the run failed; trying again later');
      return;
    }
    this.stale = false;
    if (!batch) {
      // The run is gone (its organization was deleted): its clients reconnect and get 404.
      for (const stream of [...this.streams]) void stream.end();
      return;
    }
    this.version = batch.version;
    for (const stream of [...this.streams]) stream.deliver(batch);
    // A stream that became ready during the read, further behind than it reached.
    if ([...this.streams].some((s) => s.dirty && s.ready)) this.again = true;
  }
}
