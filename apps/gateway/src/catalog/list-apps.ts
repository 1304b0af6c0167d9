import type { AppSummary, AppVisibilitySchema, z } from '@weft/contracts';
import { paginate, type Db, type KeysetQuery, type Page, type Prisma } from '@weft/db';
import { appListScope } from './access';
import { escapeLike } from './like';
import { toAppSummary } from './mappers';

export interface ListAppsInput {
  limit: number;
  cursor?: string;
  visibility?: z.infer<typeof AppVisibilitySchema>[];
  search?: string;
  owned: boolean;
}

export async function listApps(db: Db, orgId: string, input: ListAppsInput): Promise<Page<AppSummary>> {
  const filters: Prisma.AppWhereInput[] = [appListScope(orgId, input)];
  if (input.search) filters.push({ name: { contains: escapeLike(input.search), mode: 'insensitive' } });

  return paginate(
    input,
    (keyset: KeysetQuery) =>
      db.prisma.app.findMany({
        where: { AND: [...filters, keyset.where] },
        orderBy: keyset.orderBy,
        take: keyset.take,
        select: {
          id: true,
          name: true,
          description: true,
          avatarUrl: true,
          visibility: true,
          estimatedCost: true,
          inputs: true,
          createdAt: true,
        },
      }),
    toAppSummary,
  );
}
