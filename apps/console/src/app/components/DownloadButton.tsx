import { useState } from 'react';
import { useClient } from '../client-context';
import { ErrorNote } from './ErrorNote';

/**
 * Downloads an asset through the gateway (with the key, which a plain link
 * could not send) and hands it to the browser under the gateway's file name.
 */
export function DownloadButton({ assetId, label = 'Download' }: { assetId: string; label?: string }) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  async function download() {
    setBusy(true);
    setError(undefined);
    try {
      const { blob, filename } = await client.downloadBlob(assetId);
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = filename ?? assetId;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      <button type="button" className="secondary" aria-busy={busy} onClick={() => void download()}>
        {label}
      </button>
      <ErrorNote error={error} />
    </>
  );
}
