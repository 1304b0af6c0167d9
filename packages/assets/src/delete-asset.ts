import type { Db } from '@weft/db';

/** What a delete found: `gone` when the asset was deleted before, `missing` when the organization has none by that id. */
export type DeleteOutcome = 'deleted' | 'gone' | 'missing';

/**
 * Soft delete: the row is marked and the file kept. Only the owner may
 * delete (another organization's asset, even a public one, is `missing`).
 * The conditional update makes concurrent deletes give one `deleted` and
 * `gone` for the others.
 */
export async function deleteAsset(db: Db, organizationId: string, assetId: string): Promise<DeleteOutcome> {
  const { count } = await db.prisma.asset.updateMany({
    where: { id: assetId, organizationId, deletedAt: null },
    data: { deletedAt: new Date() },
  });
  if (count === 1) return 'deleted';
  const row = await db.prisma.asset.findFirst({ where: { id: assetId, organizationId }, select: { id: true } });
  return row ? 'gone' : 'missing';
}
