import type { Db } from '@weft/db';

/** An organization's balance: its row plus what settled runs gave back that no reservation applied yet (ADR 0011). */
export async function balanceOf(db: Db, organizationId: string): Promise<number> {
  const org = await db.prisma.organization.findUniqueOrThrow({
    where: { id: organizationId },
    select: { credits: true, pendingCredits: { select: { amount: true } } },
  });
  return org.credits + org.pendingCredits.reduce((sum, p) => sum + p.amount, 0);
}
