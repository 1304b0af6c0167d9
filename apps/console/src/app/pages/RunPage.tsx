import { hasEnded, type AnyRun } from '@weft/sdk/browser';
import { lazy, Suspense, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { useClient } from '../client-context';
import { ErrorNote } from '../components/ErrorNote';
import type { GraphShape, NodeView } from '../components/FlowGraph';
import { ResultList } from '../components/ResultList';
import { RunStatus } from '../components/RunStatus';
import { formatCredits, formatDate, formatPercent, NODE_STATUS_LABEL, shortId } from '../format';
import { useLoad } from '../use-load';
import { useRunFeed } from '../use-run-feed';

// The graph's libraries are most of the console's weight: loaded when a run is opened.
const FlowGraph = lazy(() => import('../components/FlowGraph'));

/** One run, live: its state, the flow with each node's state, its results. */
export function RunPage({ kind, id }: { kind: 'agent' | 'app'; id: string }) {
  const client = useClient();
  const { run, nodes, texts, error } = useRunFeed(kind, id);
  const graph = useLoad(
    async (signal): Promise<{ shape: GraphShape; states: Map<string, NodeView> }> => {
      const path = kind === 'app' ? '/app-runs/{run_id}/graph' : '/runs/{run_id}/graph';
      const { data, error: failed } = await client.api.GET(path, { params: { path: { run_id: id } }, signal });
      if (!data) throw failed instanceof Error ? failed : new Error('The flow of this run could not be read');
      // Comments and groups annotate a flow; they never run.
      const nodes = data.nodes.filter((n) => n.type !== 'comment' && n.type !== 'group');
      return { shape: { nodes, edges: data.edges }, states: new Map(nodes.map((n) => [n.id, n])) };
    },
    [client, kind, id],
  );
  // The graph's states when it was read, and every node event since on top of them
  // (a stream opened on an ended run sends none: the graph has them).
  const states = useMemo(() => {
    const merged = new Map<string, NodeView>(graph.data?.states);
    for (const [nodeId, state] of nodes) merged.set(nodeId, state);
    return merged;
  }, [graph.data, nodes]);

  if (error) return <ErrorNote error={error} />;
  if (!run) return <p aria-busy="true">Loading the run…</p>;
  return (
    <section>
      <h1>Run {shortId(run.id)}</h1>
      <RunSummaryLine run={run} />
      <RunActions kind={kind} run={run} />
      {run.error && (
        <div role="alert" className="error-note">
          <strong>{run.failure_reason ?? 'Failed'}:</strong> {run.error}
        </div>
      )}
      <WritingNodes texts={texts} states={states} />
      <h2>Flow</h2>
      <ErrorNote error={graph.error} />
      {graph.data && (
        <Suspense fallback={<p aria-busy="true">Drawing the flow…</p>}>
          <FlowGraph shape={graph.data.shape} states={states} />
        </Suspense>
      )}
      {graph.data && (
        <details>
          <summary>Nodes as a list</summary>
          <ul className="node-list">
            {graph.data.shape.nodes.map((n) => {
              const state = states.get(n.id);
              const status = state?.status ?? 'pending';
              return (
                <li key={n.id}>
                  <strong>{n.id}</strong> ({n.type}): {NODE_STATUS_LABEL[status] ?? status}
                  {state?.cost ? `, ${formatCredits(state.cost)}` : ''}
                  {state?.error ? ` — ${state.error}` : ''}
                </li>
              );
            })}
          </ul>
        </details>
      )}
      <ResultList results={run.results} />
    </section>
  );
}

/** The text of each node that writes as it runs (an llm's answer streaming), until it settles. */
function WritingNodes({ texts, states }: { texts: Map<string, string>; states: Map<string, NodeView> }) {
  const writing = [...texts].filter(([nodeId]) => states.get(nodeId)?.status === 'running');
  if (writing.length === 0) return null;
  return (
    <>
      {writing.map(([nodeId, text]) => (
        <section key={nodeId} className="node-writing" aria-label={`${nodeId} is writing`}>
          <h2>{nodeId} is writing…</h2>
          <p aria-live="polite">{text}</p>
        </section>
      ))}
    </>
  );
}

function RunSummaryLine({ run }: { run: AnyRun }) {
  return (
    <div className="run-summary">
      <p>
        <RunStatus run={run} /> · {formatPercent(run.progress)}
        {run.current_node ? ` · now: ${run.current_node}` : ''} · cost {formatCredits(run.cost)}
      </p>
      <progress value={run.progress} max={1} aria-label="Progress" />
      <p>
        <small>
          Started {formatDate(run.started_at ?? run.created_at)}
          {run.completed_at ? `, ended ${formatDate(run.completed_at)}` : ''}
          {run.external_id ? ` · external id ${run.external_id}` : ''}
        </small>
      </p>
    </div>
  );
}

function RunActions({ kind, run }: { kind: 'agent' | 'app'; run: AnyRun }) {
  const client = useClient();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  if (hasEnded(run)) return null;
  async function cancel() {
    if (!window.confirm('Cancel this run? Nodes still running are stopped.')) return;
    setBusy(true);
    try {
      await client.cancel({ kind, id: run.id });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="actions">
      {run.awaiting_human_review && (
        <Link className="button-link" href={`/reviews/${kind === 'app' ? 'app-runs' : 'runs'}/${run.id}`}>
          Decide the review
        </Link>
      )}
      <button type="button" className="secondary" aria-busy={busy} onClick={() => void cancel()}>
        Cancel run
      </button>
      <ErrorNote error={error} />
    </div>
  );
}
