import type { AppSummary, AppVisibilitySchema, z } from '@weft/contracts';
import { pageOfRows, SqlValues, type Db, type Page } from '@weft/db';
import { appListScope } from './access';
import { escapeLike } from './like';
import { toAppSummary, type AppSummaryRow } from './mappers';

export interface ListAppsInput {
  limit: number;
  cursor?: string;
  visibility?: z.infer<typeof AppVisibilitySchema>[];
  search?: string;
  owned: boolean;
}

const SELECT = `p.id, p.name, p.description, p.avatar_url AS "avatarUrl", p.visibility,
  p.estimated_cost AS "estimatedCost", p.inputs, p.created_at AS "createdAt"`;

export async function listApps(db: Db, orgId: string, input: ListAppsInput): Promise<Page<AppSummary>> {
  const values = new SqlValues();
  const where = [appListScope(orgId, input, values)];
  if (input.search) where.push(`p.name ILIKE ${values.add(`%${escapeLike(input.search)}%`)}`);
  return pageOfRows<AppSummaryRow, AppSummary>(
    db.pool,
    input,
    { select: SELECT, from: 'apps p', alias: 'p', where, values },
    toAppSummary,
  );
}
