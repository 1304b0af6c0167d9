import { deleteAsset as deleteAssetRow } from '@weft/assets';
import type { Db } from '@weft/db';
import { GoneError, NotFoundError } from '@weft/errors';
import type { AssetFiles } from './asset-files';

/**
 * DELETE /assets/{id}: 204 for the delete that marks the row, 404 for
 * another organization's asset (even a public one), 410 for a second delete.
 *
 * Every instance then forgets what it cached for downloads (asset-files.ts).
 * The delete is committed by then, so a failed broadcast is reported to
 * `onError` rather than turning the answer into an error; a 410 broadcasts
 * again, so that retrying heals a broadcast that was lost.
 */
export async function deleteAsset(
  db: Db,
  files: AssetFiles,
  organizationId: string,
  assetId: string,
  onError: (err: unknown) => void,
): Promise<void> {
  const outcome = await deleteAssetRow(db, organizationId, assetId);
  const broadcast = () => files.deleted(assetId).catch(onError);
  if (outcome === 'deleted') return broadcast();
  if (outcome === 'missing') throw new NotFoundError('Asset');
  await broadcast();
  throw new GoneError('Asset already deleted');
}
