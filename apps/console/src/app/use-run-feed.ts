import type { AnyRun, NodeState } from '@weft/sdk/browser';
import { useEffect, useState } from 'react';
import { useClient } from './client-context';

export interface RunFeed {
  run: AnyRun | undefined;
  nodes: Map<string, NodeState>;
  /** The text each node has written so far as it streams (its `delta` events), by node id. */
  texts: Map<string, string>;
  error: unknown;
}

const EMPTY: RunFeed = { run: undefined, nodes: new Map(), texts: new Map(), error: undefined };

/**
 * A run as it changes: its event stream (the SDK reconnects with
 * Last-Event-ID, or polls where there is no stream) until it ends, with the
 * text its nodes write as they go.
 */
export function useRunFeed(kind: 'agent' | 'app', id: string): RunFeed {
  const client = useClient();
  const [feed, setFeed] = useState<RunFeed>(EMPTY);
  useEffect(() => {
    const controller = new AbortController();
    setFeed(EMPTY);
    void (async () => {
      try {
        await client.wait(
          { kind, id },
          {
            signal: controller.signal,
            onEvent: (event) => {
              if (event.type === 'node') {
                setFeed((f) => ({ ...f, nodes: new Map(f.nodes).set(event.node.node_id, event.node) }));
              } else {
                setFeed((f) => ({ ...f, run: event.run }));
              }
            },
            // Index 0 starts a node's text (again, when it is executed again).
            onDelta: ({ node_id, index, text }) =>
              setFeed((f) => ({
                ...f,
                texts: new Map(f.texts).set(node_id, index === 0 ? text : (f.texts.get(node_id) ?? '') + text),
              })),
          },
        );
      } catch (error) {
        if (!controller.signal.aborted) setFeed((f) => ({ ...f, error }));
      }
    })();
    return () => controller.abort();
  }, [client, kind, id]);
  return feed;
}
