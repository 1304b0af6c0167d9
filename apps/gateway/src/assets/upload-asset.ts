import { UploadAssetFields, type Asset } from '@weft/contracts';
import { violatesUniqueIndex } from '@weft/db';
import { BadRequestError, ExternalIdConflictError, invalid } from '@weft/errors';
import { MediaMismatchError, resolveMedia, type DetectedMedia } from '@weft/media';
import { deleteObject } from '@weft/storage';
import type { Request, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { parsePart } from '../http/validation';
import { sanitizeFilename } from './filename';
import { toAsset, type AssetFullRow } from './mappers';
import { receiveUpload, type ReceivedUpload } from './receive-upload';

/**
 * POST /assets/upload: stream the file to S3, then record it. The row is
 * written only once the object exists, and the object is deleted again when
 * the row cannot be written (validation, a claimed external_id, a database
 * error), so neither exists without the other. The external_id claim is the
 * database's unique index: of concurrent uploads with one key exactly one
 * inserts, the others answer 409 with the winner's id.
 */
export async function uploadAsset(
  deps: GatewayDeps,
  organizationId: string,
  req: Request,
  res: Response,
): Promise<Asset> {
  const received = await receiveUpload(req, res, {
    storage: deps.storage,
    organizationId,
    maxBytes: deps.config.ASSET_MAX_UPLOAD_BYTES,
    memory: deps.uploadMemory,
  });
  const { file } = received;
  if (!file) {
    // A part without a filename in its Content-Disposition reaches us as a text field.
    if (received.fields.file !== undefined) {
      throw invalid(
        ['body', 'file'],
        'Must be a file part: give it a filename in its Content-Disposition',
        'value_error',
      );
    }
    throw invalid(['body', 'file'], 'Field required', 'missing');
  }
  let row;
  try {
    row = await recordUpload(deps, organizationId, file, received);
  } catch (err) {
    await removeOrphan(deps, file.key);
    throw err;
  }
  // Not awaited: the asset is usable unprocessed, enqueueProcessing never throws,
  // and the workers' sweeper enqueues any asset whose job was not added.
  void deps.assetJobs.enqueueProcessing(row.id);
  return toAsset(row, deps.assetUrls);
}

async function recordUpload(
  deps: GatewayDeps,
  organizationId: string,
  file: NonNullable<ReceivedUpload['file']>,
  received: ReceivedUpload,
) {
  const fields = parsePart('body', UploadAssetFields, received.fields);
  const filename = sanitizeFilename(fields.filename ?? file.originalname);
  let media: DetectedMedia = file.media;
  if (fields.filename !== undefined) {
    try {
      media = resolveMedia(file.sniff, filename ?? undefined);
    } catch (err) {
      if (err instanceof MediaMismatchError) throw new BadRequestError(err.message);
      throw err;
    }
  }
  const row: AssetFullRow = {
    id: file.assetId,
    externalId: fields.external_id ?? null,
    assetType: 'reference',
    mediaType: media.mediaType,
    mediaExtension: media.extension,
    filename,
    visibility: fields.visibility,
    bookmarked: false,
    archived: false,
    downloaded: false,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    storageKey: file.key,
    previewKey: null,
    agentId: null,
    runId: null,
    assetMetadata: null,
    isFlowOutputSample: false,
    blurHash: null,
  };
  try {
    const { rows } = await deps.db.pool.query<{ created_at: Date }>({
      ...INSERT_UPLOAD,
      values: [
        row.id,
        organizationId,
        row.externalId,
        row.mediaType,
        row.mediaExtension,
        row.visibility,
        filename,
        media.contentType,
        file.size,
        row.storageKey,
      ],
    });
    row.createdAt = row.updatedAt = rows[0]!.created_at;
    return row;
  } catch (err) {
    if (violatesUniqueIndex(err, EXTERNAL_ID_INDEX)) {
      const holder = await deps.db.prisma.asset.findUnique({
        where: { organizationId_externalId: { organizationId, externalId: fields.external_id! } },
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

async function removeOrphan(deps: GatewayDeps, key: string): Promise<void> {
  try {
    await deleteObject(deps.storage, key);
  } catch (err) {
    // The request fails either way; an operator can remove the object by this key.
    deps.logger.error({ err: (err as Error).message, key }, 'could not delete the object of a failed upload');
  }
}
