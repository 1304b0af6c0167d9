import type { Upload } from '../use-uploads';
import { AssetPreview } from './AssetPreview';
import { ErrorNote } from './ErrorNote';

/** Each file being sent: its progress bar, then its preview or its error. */
export function UploadList({ uploads }: { uploads: Upload[] }) {
  return (
    <>
      {uploads.map((u, i) => (
        <div key={i} className="upload">
          <label>
            {u.asset ? `${u.name}: uploaded` : u.error ? `${u.name}: failed` : `Uploading ${u.name}`}
            <progress value={u.sent} max={u.total || 1} />
          </label>
          {u.asset && <AssetPreview asset={u.asset} small />}
          <ErrorNote error={u.error} />
        </div>
      ))}
    </>
  );
}
