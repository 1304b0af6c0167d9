import { violatesUniqueIndex, type Db } from '@weft/db';
import { ExternalIdConflictError } from '@weft/errors';
import type { DetectedMedia } from '@weft/media';
import type { AssetFullRow } from './to-asset';

/** An uploaded file, stored under `storageKey`, as its row records it. */
export interface Upload {
  id: string;
  organizationId: string;
  externalId: string | null;
  media: DetectedMedia;
  filename: string | null;
  visibility: AssetFullRow['visibility'];
  size: number;
  storageKey: string;
}

/**
 * Inserts the upload's row. The external_id claim is the database's unique
 * index: of concurrent uploads with one key exactly one inserts, the others
 * get ExternalIdConflictError with the winner's id.
 */
export async function recordUpload(db: Db, upload: Upload): Promise<AssetFullRow> {
  const { media } = upload;
  const row: AssetFullRow = {
    id: upload.id,
    externalId: upload.externalId,
    assetType: 'reference',
    mediaType: media.mediaType,
    mediaExtension: media.extension,
    filename: upload.filename,
    visibility: upload.visibility,
    bookmarked: false,
    archived: false,
    downloaded: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    storageKey: upload.storageKey,
    previewKey: null,
    agentId: null,
    runId: null,
    assetMetadata: null,
    isFlowOutputSample: false,
    blurHash: null,
  };
  try {
    const { rows } = await db.pool.query<{ created_at: Date }>({
      ...INSERT_UPLOAD,
      values: [
        row.id,
        upload.organizationId,
        row.externalId,
        row.mediaType,
        row.mediaExtension,
        row.visibility,
        upload.filename,
        media.contentType,
        upload.size,
        row.storageKey,
      ],
    });
    row.createdAt = row.updatedAt = rows[0]!.created_at;
    return row;
  } catch (err) {
    if (violatesUniqueIndex(err, EXTERNAL_ID_INDEX)) {
      const holder = await db.prisma.asset.findUnique({
        where: { organizationId_externalId: { organizationId: upload.organizationId, externalId: upload.externalId! } },
        select: { id: true },
      });
      if (holder) throw new ExternalIdConflictError(holder.id);
    }
    throw err;
  }
}

// Every upload writes this row: in SQL through the pool Prisma shares, since an
// un-batched Prisma query costs about four times the CPU of `pg`.
const INSERT_UPLOAD = {
  name: 'assets_insert_upload_v1',
  text: `INSERT INTO assets (id, organization_id, external_id, asset_type, media_type, media_extension, visibility,
                          filename, content_type, size_bytes, storage_key, created_at, updated_at)
         VALUES ($1, $2, $3, 'reference', $4::"MediaType", $5, $6::"AssetVisibility", $7, $8, $9, $10, now(), now())
         RETURNING created_at`,
};
/** The only unique index an upload can violate (the id is new): (organization_id, external_id). */
const EXTERNAL_ID_INDEX = 'assets_organization_id_external_id_key';
