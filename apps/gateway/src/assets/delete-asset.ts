import type { Db } from '@weft/db';
import { GoneError, NotFoundError } from '@weft/errors';
import type { AssetFiles } from './asset-files';

/**
 * Soft delete: the row is marked and the file kept. Only the owner may
 * delete (another organization gets 404 even for a public asset); a second
 * delete answers 410. The conditional update makes concurrent deletes give
 * one 204 and 410s.
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
  const { count } = await db.prisma.asset.updateMany({
    where: { id: assetId, organizationId, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  const broadcast = () => files.deleted(assetId).catch(onError);
  if (count === 1) return broadcast();
  const row = await db.prisma.asset.findFirst({ where: { id: assetId, organizationId }, select: { id: true } });
  if (!row) throw new NotFoundError('Asset');
  await broadcast();
  throw new GoneError('Asset already deleted');
}
