import { runChangesChannel } from '@weft/queue';
import type { RedisClient } from '@weft/queue';

/** A run a commit changed, at the version the commit moved it to. */
export interface RunChange {
  id: string;
  version: number;
}

/**
 * Tells the gateways that runs changed, so that their event streams read them
 * again (docs/api.md#following-a-run-live): after each commit, one PUBLISH
 * with a line `<run id> <version>` per run it changed (a worker's grouped
 * commit covers up to 64). Sent after the commit and never awaited: a
 * transition does not wait for Redis, and cannot fail because of it.
 * PostgreSQL holds the change, so a lost message only delays its event until
 * the gateway's periodic check of the runs it watches.
 */
export class RunChanges {
  private readonly channel: string;

  constructor(
    private readonly publisher: RedisClient,
    prefix: string,
  ) {
    this.channel = runChangesChannel(prefix);
  }

  announce(runs: readonly RunChange[]): void {
    if (runs.length === 0) return;
    let message = `${runs[0]!.id} ${runs[0]!.version}`;
    for (let i = 1; i < runs.length; i++) message += `\n${runs[i]!.id} ${runs[i]!.version}`;
    void this.publisher.publish(this.channel, message).catch(() => 0);
  }
}

/**
 * Subscribes `subscriber` (a dedicated connection) to run changes: `onChange`
 * is called once per run of each message. A message that is not a change
 * (another writer on the channel) is ignored.
 */
export async function listenForRunChanges(
  subscriber: RedisClient,
  prefix: string,
  onChange: (change: RunChange) => void,
): Promise<void> {
  const channel = runChangesChannel(prefix);
  subscriber.on('message', (ch: string, message: string) => {
    if (ch !== channel) return;
    for (const line of message.split('\n')) {
      const space = line.indexOf(' ');
      const version = Number(line.slice(space + 1));
      if (space > 0 && Number.isSafeInteger(version)) onChange({ id: line.slice(0, space), version });
    }
  });
  await subscriber.subscribe(channel);
}
