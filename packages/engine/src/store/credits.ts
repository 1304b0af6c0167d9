import type { Db } from '@weft/db';
import { ConflictError, NotFoundError, invalid } from '@weft/errors';

const MAX_BALANCE = 2_147_483_647; // organizations.credits is a PostgreSQL integer

/**
 * Adds `delta` (negative to remove) to the balance and writes the ledger line in
 * the same transaction. The credits settled runs gave back and no reservation
 * has applied yet (pending_credits, ADR 0011) are applied first, so the guard
 * and the answer are the whole balance. The guard is in the UPDATE itself, so
 * concurrent adjustments and run reservations can never take the balance below
 * zero: PostgreSQL re-evaluates the WHERE on the latest row version after a lock wait.
 */
export async function adjustCredits(db: Db, organizationId: string, delta: number): Promise<{ credits: number }> {
  return db.prisma.$transaction(async (tx) => {
    await tx.$executeRaw`
      WITH applied AS (DELETE FROM pending_credits WHERE organization_id = ${organizationId}::uuid RETURNING amount)
      UPDATE organizations SET credits = credits + (SELECT COALESCE(sum(amount), 0) FROM applied)::int
       WHERE id = ${organizationId}::uuid AND EXISTS (SELECT 1 FROM applied)`;
    const updated = await tx.$queryRaw<{ credits: number }[]>`
      UPDATE organizations SET credits = credits + ${delta}::integer
      WHERE id = ${organizationId}::uuid
        AND credits::bigint + ${delta}::bigint BETWEEN 0 AND ${MAX_BALANCE}::bigint
      RETURNING credits`;
    const row = updated[0];
    if (!row) {
      const org = await tx.organization.findUnique({ where: { id: organizationId }, select: { credits: true } });
      if (!org) throw new NotFoundError('Organization');
      if (org.credits + delta < 0) {
        throw new ConflictError(`Insufficient credits: the balance is ${org.credits}, it cannot go below zero`, {
          credits: org.credits,
        });
      }
      throw invalid(['body', 'delta'], `The balance would exceed ${MAX_BALANCE}`, 'less_than_equal', delta);
    }
    // A zero delta changes nothing and leaves no ledger line.
    if (delta !== 0) {
      await tx.creditLedgerEntry.create({
        data: { organizationId, kind: 'grant', amount: delta, note: 'admin adjustment' },
      });
    }
    return { credits: row.credits };
  });
}
