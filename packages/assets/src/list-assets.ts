import type { AssetSummary } from '@weft/contracts';
import { pageOfRows, SqlValues, type Db, type Page } from '@weft/db';
import type { UrlSigner } from '@weft/storage';
import { ASSET_SUMMARY_SELECT, toAssetSummary, type AssetSummaryRow } from './to-asset';

export interface ListAssetsInput {
  limit: number;
  cursor?: string;
  asset_ids?: string[];
  agent_id?: string;
  run_id?: string;
  external_id?: string;
}

// The summary's columns, named as the Prisma select that reads one asset names them,
// so the two cannot drift apart (columns are the fields in snake_case).
const SELECT = Object.keys(ASSET_SUMMARY_SELECT)
  .map((field) => `s.${field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} AS "${field}"`)
  .join(', ');

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
