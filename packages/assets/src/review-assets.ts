import { readableBySql } from '@weft/db';
import type { PoolClient } from 'pg';

/**
 * The media type of each live asset among `ids` that `orgId` may read, by id;
 * the others are absent. Read on the client of the review decision's transaction.
 */
export async function readReviewedAssets(
  client: PoolClient,
  orgId: string,
  ids: string[],
): Promise<Map<string, string>> {
  const { rows } = await client.query<{ id: string; media_type: string }>(
    `SELECT id, media_type FROM assets
      WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL AND ${readableBySql('$2')}`,
    [ids, orgId],
  );
  return new Map(rows.map((r) => [r.id, r.media_type]));
}
