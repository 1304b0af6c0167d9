import { recordUpload, sanitizeFilename, toAsset } from '@weft/assets';
import { UploadAssetFields, type Asset } from '@weft/contracts';
import { BadRequestError, invalid } from '@weft/errors';
import { MediaMismatchError, resolveMedia, type DetectedMedia } from '@weft/media';
import { deleteObject } from '@weft/storage';
import type { Request, Response } from 'express';
import type { GatewayDeps } from '../deps';
import { parsePart } from '../http/validation';
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
    row = await recordReceived(deps, organizationId, file, received);
  } catch (err) {
    await removeOrphan(deps, file.key);
    throw err;
  }
  // Not awaited: the asset is usable unprocessed, enqueueProcessing never throws,
  // and the workers' sweeper enqueues any asset whose job was not added.
  void deps.assetJobs.enqueueProcessing(row.id);
  return toAsset(row, deps.assetUrls);
}

/** Records a received file once its form fields are validated and its media type settled. */
async function recordReceived(
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
  return recordUpload(deps.db, {
    id: file.assetId,
    organizationId,
    externalId: fields.external_id ?? null,
    media,
    filename,
    visibility: fields.visibility,
    size: file.size,
    storageKey: file.key,
  });
}

async function removeOrphan(deps: GatewayDeps, key: string): Promise<void> {
  try {
    await deleteObject(deps.storage, key);
  } catch (err) {
    // The request fails either way; an operator can remove the object by this key.
    deps.logger.error({ err: (err as Error).message, key }, 'could not delete the object of a failed upload');
  }
}
