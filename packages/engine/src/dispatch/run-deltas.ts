import type { RunDeltaEvent } from '@weft/contracts';
import { runDeltasChannel } from '@weft/queue';
import type { Redis } from 'ioredis';

/**
 * Text nodes produce as it comes (ctx.emitDelta), from the worker executing
 * the node to the gateways following its run: one PUBLISH per chunk on the
 * run's own channel, which only the gateways with a stream of that run
 * subscribe to. Never stored, never awaited, and lost where no one listens:
 * the node's output, committed to PostgreSQL, is the record. Published on
 * the connection that announces run changes, so a node's deltas reach a
 * gateway before the change that settles it.
 */
export class RunDeltas {
  constructor(
    private readonly publisher: Redis,
    private readonly prefix: string,
  ) {}

  /** The emitDelta of one execution of a node: its chunks counted from 0. */
  emitter(runId: string, nodeId: string): (text: string) => void {
    const channel = runDeltasChannel(this.prefix, runId);
    let index = 0;
    return (text) => {
      if (text === '') return;
      const delta: RunDeltaEvent = { node_id: nodeId, index: index++, text };
      void this.publisher.publish(channel, JSON.stringify(delta)).catch(() => 0);
    };
  }
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
  subscriber: Redis,
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
