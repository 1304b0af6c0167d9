import type { AssetSummary } from '@weft/contracts';
import { paginate, type Db, type KeysetQuery, type Page, type Prisma } from '@weft/db';
import type { UrlSigner } from '@weft/storage';
import { ASSET_SUMMARY_SELECT, toAssetSummary } from './mappers';

export interface ListAssetsInput {
  limit: number;
  cursor?: string;
  asset_ids?: string[];
  agent_id?: string;
  run_id?: string;
  external_id?: string;
}

/**
 * The caller organization's live assets, newest first. Filters combine with
 * AND; agent_id and run_id match only produced assets, since uploads carry
 * neither. Ids of missing or foreign assets simply match nothing.
 */
export async function listAssets(
  db: Db,
  urls: UrlSigner,
  organizationId: string,
  input: ListAssetsInput,
): Promise<Page<AssetSummary>> {
  const where: Prisma.AssetWhereInput = { organizationId, deletedAt: null };
  if (input.asset_ids) where.id = { in: input.asset_ids };
  if (input.agent_id) where.agentId = input.agent_id;
  if (input.run_id) where.runId = input.run_id;
  if (input.external_id !== undefined) where.externalId = input.external_id;

  const page = await paginate(
    input,
    (keyset: KeysetQuery) =>
      db.prisma.asset.findMany({
        where: { AND: [where, keyset.where] },
        orderBy: keyset.orderBy,
        take: keyset.take,
        select: ASSET_SUMMARY_SELECT,
      }),
    (row) => row,
  );
  return { ...page, data: await Promise.all(page.data.map((row) => toAssetSummary(row, urls))) };
}
