import type { AnyRun, NodeState } from '@weft/sdk/browser';
import { useEffect, useState } from 'react';
import { useClient } from './client-context';

export interface RunFeed {
  run: AnyRun | undefined;
  nodes: Map<string, NodeState>;
  error: unknown;
}

/**
 * A run as it changes: its event stream (the SDK reconnects with
 * Last-Event-ID, or polls where there is no stream) until it ends.
 */
export function useRunFeed(kind: 'agent' | 'app', id: string): RunFeed {
  const client = useClient();
  const [feed, setFeed] = useState<RunFeed>({ run: undefined, nodes: new Map(), error: undefined });
  useEffect(() => {
    const controller = new AbortController();
    setFeed({ run: undefined, nodes: new Map(), error: undefined });
    void (async () => {
      try {
        for await (const event of client.follow({ kind, id }, { signal: controller.signal })) {
          if (event.type === 'node') {
            setFeed((f) => ({ ...f, nodes: new Map(f.nodes).set(event.node.node_id, event.node) }));
          } else {
            setFeed((f) => ({ ...f, run: event.run }));
          }
        }
      } catch (error) {
        if (!controller.signal.aborted) setFeed((f) => ({ ...f, error }));
      }
    })();
    return () => controller.abort();
  }, [client, kind, id]);
  return feed;
}
