import type { AssetSummary } from '@weft/sdk/browser';
import { useState } from 'react';
import { Link } from 'wouter';
import { useClient } from '../client-context';
import { AssetPreview } from '../components/AssetPreview';
import { DownloadButton } from '../components/DownloadButton';
import { ErrorNote } from '../components/ErrorNote';
import { ListFooter } from '../components/ListFooter';
import { UploadList } from '../components/UploadList';
import { formatDate, shortId } from '../format';
import { usePages } from '../use-pages';
import { useUploads } from '../use-uploads';

/** The organization's assets, newest first, with previews and downloads; files uploaded here join them. */
export function AssetsPage() {
  const client = useClient();
  const [runId, setRunId] = useState('');
  const [externalId, setExternalId] = useState('');
  const query = {
    ...(runId.trim() ? { run_id: runId.trim() } : {}),
    ...(externalId.trim() ? { external_id: externalId.trim() } : {}),
  };
  const assets = usePages<AssetSummary>((signal) => client.assets.list(query, { signal }), 24, [
    client,
    runId,
    externalId,
  ]);
  const uploads = useUploads();
  const { reload } = assets;
  return (
    <section>
      <h1>Assets</h1>
      <div className="media-field">
        <label htmlFor="upload-assets">Upload files</label>
        <input
          id="upload-assets"
          type="file"
          multiple
          // Each stored file shows in the list at once, newest first.
          onChange={(e) => void uploads.send(Array.from(e.target.files ?? []), { onUploaded: reload })}
        />
        <UploadList uploads={uploads.list} />
      </div>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter assets">
        <label>
          Run id
          <input value={runId} onChange={(e) => setRunId(e.target.value)} />
        </label>
        <label>
          External id
          <input value={externalId} onChange={(e) => setExternalId(e.target.value)} />
        </label>
      </form>
      <ErrorNote error={assets.error} />
      <ul className="asset-grid">
        {assets.items.map((asset) => (
          <li key={asset.id}>
            <AssetPreview asset={asset} />
            <p>
              <small>
                {asset.media_type} · {asset.asset_type} · {formatDate(asset.created_at)}
                {asset.run_id && (
                  <>
                    {' · '}
                    <Link href={`/runs/${asset.run_id}`}>run {shortId(asset.run_id)}</Link>
                  </>
                )}
              </small>
            </p>
            <DownloadButton assetId={asset.id} />
          </li>
        ))}
      </ul>
      <ListFooter pages={assets} empty="No asset matches." />
    </section>
  );
}
