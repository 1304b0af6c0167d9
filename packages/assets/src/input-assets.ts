import { readableBySql, type Db } from '@weft/db';

export interface InputAssetRow {
  id: string;
  media_type: string;
  media_extension: string;
}

/** The live assets among `ids` that `orgId` may read (its own, or public or shared); the others are absent. */
export async function readInputAssets(db: Db, orgId: string, ids: string[]): Promise<InputAssetRow[]> {
  const { rows } = await db.pool.query<InputAssetRow>(
    `SELECT id, media_type, media_extension FROM assets
      WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL AND ${readableBySql('$2')}`,
    [ids, orgId],
  );
  return rows;
}
