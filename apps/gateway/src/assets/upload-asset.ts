import { UploadAssetFields, type Asset } from '@weft/contracts';
import { isUniqueViolation } from '@weft/db';
import { BadRequestError, ExternalIdConflictError, invalid } from '@weft/errors';
import { MediaMismatchError, resolveMedia, type DetectedMedia } from '@weft/media';
import { deleteObject } from '@weft/storage';
import type { Request, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { parsePart } from '../http/validation';
import { sanitizeFilename } from './filename';
import { ASSET_FULL_SELECT, toAsset } from './mappers';
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
  });
  const { file } = received;
  if (!file) throw invalid(['body', 'file'], 'Field required', 'missing');
  let row;
  try {
    row = await recordUpload(deps, organizationId, file, received);
  } catch (err) {
    await removeOrphan(deps, file.key);
    throw err;
  }
  await deps.assetJobs.enqueueProcessing(row.id);
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
  try {
    return await deps.db.prisma.asset.create({
      data: {
        id: file.assetId,
        organizationId,
        externalId: fields.external_id ?? null,
        assetType: 'reference',
        mediaType: media.mediaType,
        mediaExtension: media.extension,
        visibility: fields.visibility,
        filename,
        contentType: media.contentType,
        sizeBytes: BigInt(file.size),
        storageKey: file.key,
      },
      select: ASSET_FULL_SELECT,
    });
  } catch (err) {
    if (fields.external_id !== undefined && isUniqueViolation(err)) {
      const holder = await deps.db.prisma.asset.findUnique({
        where: { organizationId_externalId: { organizationId, externalId: fields.external_id } },
        select: { id: true },
      });
      if (holder) throw new ExternalIdConflictError(holder.id);
    }
    throw err;
  }
}

async function removeOrphan(deps: GatewayDeps, key: string): Promise<void> {
  try {
    await deleteObject(deps.storage, key);
  } catch (err) {
    // The request fails either way; an operator can remove the object by this key.
    deps.logger.error({ err: (err as Error).message, key }, 'could not delete the object of a failed upload');
  }
}
