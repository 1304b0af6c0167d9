import type { RunResult } from '@weft/sdk/browser';
import { useAssets } from '../use-assets';
import { AssetPreview } from './AssetPreview';
import { DownloadButton } from './DownloadButton';
import { ErrorNote } from './ErrorNote';

const FILE_TYPES = new Set(['images', 'videos', 'audio', 'files']);

/** A run's results: text as text, files shown (images, players) with a download each, data as JSON. */
export function ResultList({ results }: { results: RunResult[] }) {
  if (results.length === 0) return null;
  return (
    <section aria-labelledby="results-title">
      <h2 id="results-title">Results</h2>
      {results.map((r) => (
        <article key={r.id} className="result">
          <header>
            <strong>{r.id}</strong> {r.description ? <small>— {r.description}</small> : null}
          </header>
          <ResultValue result={r} />
        </article>
      ))}
    </section>
  );
}

function ResultValue({ result }: { result: RunResult }) {
  if (result.value === null || result.value === undefined) return <p>(nothing: this output was skipped)</p>;
  if (FILE_TYPES.has(result.type) && Array.isArray(result.value)) {
    return <AssetGrid ids={result.value as string[]} />;
  }
  if (typeof result.value === 'string') return <p className="text-result">{result.value}</p>;
  return <pre>{JSON.stringify(result.value, null, 2)}</pre>;
}

export function AssetGrid({ ids }: { ids: string[] }) {
  const assets = useAssets(ids);
  if (assets.error) return <ErrorNote error={assets.error} />;
  if (!assets.data) return <p aria-busy="true">Loading…</p>;
  const byId = assets.data;
  return (
    <ul className="asset-grid">
      {ids.map((id) => {
        const asset = byId.get(id);
        return (
          <li key={id}>
            {asset ? <AssetPreview asset={asset} /> : <span>{id}</span>}
            <DownloadButton assetId={id} />
          </li>
        );
      })}
    </ul>
  );
}
