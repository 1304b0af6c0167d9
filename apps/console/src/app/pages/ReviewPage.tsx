import { WeftApiError, type AnyRun, type PendingReview, type ReviewOutput } from '@weft/sdk/browser';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useClient } from '../client-context';
import { AssetPreview } from '../components/AssetPreview';
import { ErrorNote } from '../components/ErrorNote';
import { useAssets } from '../use-assets';
import { useLoad } from '../use-load';
import { shortId } from '../format';

/** A run's waiting reviews: see each proposal, edit it, keep a subset, approve or retry. */
export function ReviewPage({ kind, id }: { kind: 'agent' | 'app'; id: string }) {
  const client = useClient();
  const run = useLoad<AnyRun>(
    (signal) => (kind === 'app' ? client.appRuns.get(id, { signal }) : client.runs.get(id, { signal })),
    [client, kind, id],
  );
  const runPath = `/${kind === 'app' ? 'app-runs' : 'runs'}/${id}`;
  if (run.error) return <ErrorNote error={run.error} />;
  if (!run.data) return <p aria-busy="true">Loading…</p>;
  const reviews = run.data.pending_reviews ?? [];
  return (
    <section>
      <h1>Review of run {shortId(id)}</h1>
      <p>
        <Link href={runPath}>Watch this run</Link>
      </p>
      {reviews.length === 0 && <p>This run has no review waiting (it may have been decided already).</p>}
      {reviews.map((review) => (
        <ReviewForm key={review.id} runId={id} review={review} runPath={runPath} />
      ))}
    </section>
  );
}

function ReviewForm({ runId, review, runPath }: { runId: string; review: PendingReview; runPath: string }) {
  const client = useClient();
  const [, navigate] = useLocation();
  const proposal = review.proposed_output;
  const items = 'prompts' in proposal ? proposal.prompts : proposal.asset_ids;
  const [texts, setTexts] = useState<string[]>(items);
  const [kept, setKept] = useState<boolean[]>(items.map(() => true));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function decide(decision: 'approve' | 'retry') {
    setBusy(true);
    setError(undefined);
    try {
      if (decision === 'retry') {
        await client.decideReview(runId, review.id, { decision: 'retry' });
      } else {
        const keep = (values: string[]) => values.filter((_, i) => kept[i]);
        const output: ReviewOutput = 'prompts' in proposal ? { prompts: keep(texts) } : { asset_ids: keep(items) };
        await client.decideReview(runId, review.id, { decision: 'approve', output });
      }
      navigate(runPath);
    } catch (err) {
      setError(
        err instanceof WeftApiError && err.status === 409
          ? new Error(`This review can no longer be decided: ${err.detail ?? 'someone else decided it first'}.`)
          : err,
      );
      setBusy(false);
    }
  }

  const keptCount = kept.filter(Boolean).length;
  return (
    <article aria-labelledby={`review-${review.id}`}>
      <header>
        <h2 id={`review-${review.id}`}>Proposal of node “{review.node_id}”</h2>
        <small>
          Keep {keptCount} of {items.length}
        </small>
      </header>
      {'prompts' in proposal ? (
        <ol className="prompt-list">
          {texts.map((text, i) => (
            <li key={i}>
              <label>
                <input
                  type="checkbox"
                  checked={kept[i]}
                  onChange={(e) => setKept(kept.map((k, j) => (j === i ? e.target.checked : k)))}
                />
                Keep prompt {i + 1}
              </label>
              <textarea
                aria-label={`Prompt ${i + 1}`}
                value={text}
                rows={3}
                onChange={(e) => setTexts(texts.map((t, j) => (j === i ? e.target.value : t)))}
              />
            </li>
          ))}
        </ol>
      ) : (
        <ProposedAssets ids={items} kept={kept} onKept={setKept} />
      )}
      <ErrorNote error={error} />
      <footer className="actions">
        <button
          type="button"
          aria-busy={busy}
          disabled={busy || keptCount === 0}
          onClick={() => void decide('approve')}
        >
          Approve {keptCount < items.length ? `${keptCount} kept` : ''}
        </button>
        <button type="button" className="secondary" disabled={busy} onClick={() => void decide('retry')}>
          Retry
        </button>
      </footer>
    </article>
  );
}

function ProposedAssets({ ids, kept, onKept }: { ids: string[]; kept: boolean[]; onKept(kept: boolean[]): void }) {
  const assets = useAssets(ids);
  const byId = assets.data ?? new Map();
  return (
    <>
      <ErrorNote error={assets.error} />
      <ul className="asset-grid">
        {ids.map((id, i) => {
          const asset = byId.get(id);
          return (
            <li key={id}>
              {asset ? <AssetPreview asset={asset} /> : <span aria-busy={assets.loading}>{id}</span>}
              <label>
                <input
                  type="checkbox"
                  checked={kept[i]}
                  onChange={(e) => onKept(kept.map((k, j) => (j === i ? e.target.checked : k)))}
                />
                Keep {asset?.media_type ?? 'item'} {i + 1}
              </label>
            </li>
          );
        })}
      </ul>
    </>
  );
}
