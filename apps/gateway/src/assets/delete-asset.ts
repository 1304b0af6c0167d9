import type { Db } from '@weft/db';
import { GoneError, NotFoundError } from '@weft/errors';

/**
 * Soft delete: the row is marked and the file kept. Only the owner may
 * delete (another organization gets 404 even for a public asset); a second
 * delete answers 410. The conditional update makes concurrent deletes give
 * one 204 and 410s.
 */
export async function deleteAsset(db: Db, organizationId: string, assetId: string): Promise<void> {
  const { count } = await db.prisma.asset.updateMany({
    where: { id: assetId, organizationId, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  if (count === 1) return;
  const row = await db.prisma.asset.findFirst({ where: { id: assetId, organizationId }, select: { id: true } });
  if (!row) throw new NotFoundError('Asset');
  throw new GoneError('Asset already deleted');
}
