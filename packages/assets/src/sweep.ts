import type { Db } from '@weft/db';

/**
 * Ids of assets still waiting for processing well after they were created:
 * their job was never added (the gateway lost Redis after its commit) or was
 * lost with Redis. Adding their jobs again is harmless: job ids are
 * deterministic and BullMQ adds an id only once while it exists.
 */
export async function findUnprocessedAssets(db: Db, olderThanMs: number, limit = 500): Promise<string[]> {
  const rows = await db.prisma.asset.findMany({
    where: { processingStatus: 'pending', deletedAt: null, createdAt: { lt: new Date(Date.now() - olderThanMs) } },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true },
  });
  return rows.map((r) => r.id);
}
