import type { Asset } from '@weft/contracts';
import type { Db } from '@weft/db';
import { NotFoundError } from '@weft/errors';
import type { UrlSigner } from '@weft/storage';
import { assetReadableBy } from './access';
import { ASSET_FULL_SELECT, toAsset } from './to-asset';

/** An asset of the caller's organization, or a public or shared one; deleted assets are not found. */
export async function getAsset(db: Db, urls: UrlSigner, organizationId: string, assetId: string): Promise<Asset> {
  const row = await db.prisma.asset.findFirst({
    where: { id: assetId, deletedAt: null, ...assetReadableBy(organizationId) },
    select: ASSET_FULL_SELECT,
  });
  if (!row) throw new NotFoundError('Asset');
  return toAsset(row, urls);
}
