import type { AssetSummary } from '@weft/contracts';
import { pageOfRows, SqlValues, type Db, type Page } from '@weft/db';
import type { UrlSigner } from '@weft/storage';
import { toAssetSummary, type AssetSummaryRow } from './mappers';

export interface ListAssetsInput {
  limit: number;
  cursor?: string;
  asset_ids?: string[];
  agent_id?: string;
  run_id?: string;
  external_id?: string;
}

const SELECT = `s.id, s.external_id AS "externalId", s.asset_type AS "assetType", s.media_type AS "mediaType",
  s.media_extension AS "mediaExtension", s.visibility, s.bookmarked, s.archived, s.downloaded,
  s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.storage_key AS "storageKey",
  s.preview_key AS "previewKey", s.agent_id AS "agentId", s.run_id AS "runId"`;

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
  const values = new SqlValues();
  const where = [`s.organization_id = ${values.add(organizationId)}`, 's.deleted_at IS NULL'];
  if (input.asset_ids) where.push(`s.id = ANY(${values.add(input.asset_ids)}::uuid[])`);
  if (input.agent_id) where.push(`s.agent_id = ${values.add(input.agent_id)}::uuid`);
  if (input.run_id) where.push(`s.run_id = ${values.add(input.run_id)}::uuid`);
  if (input.external_id !== undefined) where.push(`s.external_id = ${values.add(input.external_id)}`);

  const page = await pageOfRows(
    db.pool,
    input,
    { select: SELECT, from: 'assets s', alias: 's', where, values },
    (row: AssetSummaryRow) => row,
  );
  return { ...page, data: await Promise.all(page.data.map((row) => toAssetSummary(row, urls))) };
}
