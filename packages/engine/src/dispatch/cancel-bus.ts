import { cancelChannel } from '@weft/queue';
import type { RedisClient } from '@weft/queue';

/**
 * Cancellation reaches the worker executing a run's node through Redis
 * pub/sub: every worker process subscribes and aborts its own in-flight
 * nodes of that run. PostgreSQL already holds the canceled state, so a lost
 * message only means the node finishes and its result is discarded.
 */
export class CancelBus {
  constructor(
    private readonly publisher: RedisClient,
    private readonly prefix: string,
  ) {}

  async announce(runId: string): Promise<void> {
    await this.publisher.publish(cancelChannel(this.prefix), runId).catch(() => 0);
  }
}

/** Per-process registry of the AbortControllers of nodes executing now, by run. */
export class InFlight {
  private readonly byRun = new Map<string, Set<AbortController>>();

  start(runId: string): AbortController {
    const controller = new AbortController();
    let set = this.byRun.get(runId);
    if (!set) this.byRun.set(runId, (set = new Set()));
    set.add(controller);
    return controller;
  }

  finish(runId: string, controller: AbortController): void {
    const set = this.byRun.get(runId);
    set?.delete(controller);
    if (set?.size === 0) this.byRun.delete(runId);
  }

  abortRun(runId: string): number {
    const set = this.byRun.get(runId);
    if (!set) return 0;
    for (const controller of set) controller.abort(new Error('run canceled'));
    return set.size;
  }

  get size(): number {
    let n = 0;
    for (const set of this.byRun.values()) n += set.size;
    return n;
  }
}

/** Subscribes `subscriber` (a dedicated connection) to cancellations and aborts matching in-flight nodes. */
export async function listenForCancellations(
  subscriber: RedisClient,
  prefix: string,
  inFlight: InFlight,
): Promise<void> {
  const channel = cancelChannel(prefix);
  subscriber.on('message', (ch: string, runId: string) => {
    if (ch === channel) inFlight.abortRun(runId);
  });
  await subscriber.subscribe(channel);
}
