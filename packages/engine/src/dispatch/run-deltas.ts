import type { RunDeltaEvent } from '@weft/contracts';
import { runDeltasChannel } from '@weft/queue';
import type { RedisClient } from '@weft/queue';

/**
 * Text nodes produce as it comes (ctx.emitDelta), from the worker executing
 * the node to the gateways following its run, on the run's own channel, which
 * only the gateways with a stream of that run subscribe to. Never stored,
 * never awaited, and lost where no one listens: the node's output, committed
 * to PostgreSQL, is the record. The pieces a node hands over in one turn of
 * the event loop (the chunks of one read from the provider's socket) go as
 * one delta, one PUBLISH: a provider that sends its answer faster than anyone
 * reads it costs a publish per read, not per token. Published on the
 * connection that announces run changes, and flushed before the node's
 * commit, so a node's deltas reach a gateway before the change that settles it.
 */
export class RunDeltas {
  constructor(
    private readonly publisher: RedisClient,
    private readonly prefix: string,
  ) {}

  /** The deltas of one execution of a node, counted from 0. */
  emitter(runId: string, nodeId: string): DeltaEmitter {
    const channel = runDeltasChannel(this.prefix, runId);
    let index = 0;
    let pending = '';
    let scheduled: NodeJS.Immediate | undefined;
    const flush = () => {
      if (scheduled) clearImmediate(scheduled);
      scheduled = undefined;
      if (pending === '') return;
      const delta: RunDeltaEvent = { node_id: nodeId, index: index++, text: pending };
      pending = '';
      void this.publisher.publish(channel, JSON.stringify(delta)).catch(() => 0);
    };
    return {
      emit: (text) => {
        if (text === '') return;
        pending += text;
        scheduled ??= setImmediate(flush);
      },
      flush,
    };
  }
}

export interface DeltaEmitter {
  /** Hands over a piece of text: it goes out with the others of this turn of the event loop. */
  emit(text: string): void;
  /** Sends what is pending now (before the node's commit). */
  flush(): void;
}

/** The runs whose deltas a connection listens to. */
export interface RunDeltaListener {
  /** Subscribes to the run's deltas; resolves once Redis confirmed (deltas published from then on arrive). */
  follow(runId: string): Promise<void>;
  unfollow(runId: string): void;
}

/**
 * Hands `onDelta` the deltas of the runs followed on `subscriber` (a dedicated
 * connection), as published: one line of JSON. A message that is not one
 * (another writer on the channel) is ignored.
 */
export function listenForRunDeltas(
  subscriber: RedisClient,
  prefix: string,
  onDelta: (runId: string, message: string) => void,
): RunDeltaListener {
  const head = runDeltasChannel(prefix, '');
  subscriber.on('message', (channel: string, message: string) => {
    if (!channel.startsWith(head) || !message.startsWith('{') || message.includes('\n')) return;
    onDelta(channel.slice(head.length), message);
  });
  return {
    follow: async (runId) => {
      await subscriber.subscribe(runDeltasChannel(prefix, runId));
    },
    unfollow: (runId) => {
      subscriber.unsubscribe(runDeltasChannel(prefix, runId)).catch(() => 0);
    },
  };
}
