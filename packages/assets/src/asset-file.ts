import type { Db } from '@weft/db';

/** What a download needs to know of an asset. */
export interface AssetFile {
  id: string;
  organizationId: string;
  visibility: string;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string | null;
  mediaExtension: string;
  deleted: boolean;
  /** True once the reader knows the flag is set. */
  downloaded: boolean;
}

// In SQL through the pool Prisma shares: an un-batched Prisma query costs
// about four times the CPU of `pg`, and a download (each Range of a video
// being seeked through) may read the row each time.
const LOAD_ASSET_FILE = {
  name: 'assets_load_file_v1',
  text: `SELECT id, organization_id, visibility, storage_key, content_type, size_bytes, filename, media_extension,
                downloaded, deleted_at IS NOT NULL AS deleted
           FROM assets
          WHERE id = $1`,
};
const MARK_DOWNLOADED = {
  name: 'assets_mark_downloaded_v1',
  text: `UPDATE assets SET downloaded = true, updated_at = now() WHERE id = $1 AND NOT downloaded`,
};

interface Row {
  id: string;
  organization_id: string;
  visibility: string;
  storage_key: string;
  content_type: string;
  size_bytes: string;
  filename: string | null;
  media_extension: string;
  downloaded: boolean;
  deleted: boolean;
}

/** The asset by id, deleted or not, whoever owns it: the caller applies the read rule (isReadableBy). */
export async function loadAssetFile(db: Db, assetId: string): Promise<AssetFile | undefined> {
  const { rows } = await db.pool.query<Row>({ ...LOAD_ASSET_FILE, values: [assetId] });
  const row = rows[0];
  if (!row) return undefined;
  return {
    id: row.id,
    organizationId: row.organization_id,
    visibility: row.visibility,
    storageKey: row.storage_key,
    contentType: row.content_type,
    size: Number(row.size_bytes),
    filename: row.filename,
    mediaExtension: row.media_extension,
    deleted: row.deleted,
    downloaded: row.downloaded,
  };
}

/** Sets the `downloaded` flag; a flag already set is left alone. */
export async function markAssetDownloaded(db: Db, assetId: string): Promise<void> {
  await db.pool.query({ ...MARK_DOWNLOADED, values: [assetId] });
}
