import type { Db } from '@weft/db';

const STATUSES = new Set(['in_progress', 'completed', 'failed', 'canceled']);

/**
 * The invariant every durability test ends with (issue "Run execution" 6):
 * every run is terminal or legitimately waiting for a review; its ledger
 * lines sum to minus its cost; each organization's balance (its row plus
 * its pending_credits) is explained by its ledger; no produced file was registered twice; no status outside the
 * enumeration. Returns the problems found (empty when all hold).
 */
export async function runInvariantViolations(db: Db): Promise<string[]> {
  const problems: string[] = [];
  const runs = await db.prisma.run.findMany({
    select: { id: true, status: true, cost: true, awaitingHumanReview: true, ledger: { select: { amount: true } } },
  });
  for (const run of runs) {
    if (!STATUSES.has(run.status)) problems.push(`run ${run.id}: status ${run.status}`);
    if (run.status === 'in_progress' && !run.awaitingHumanReview) problems.push(`run ${run.id}: still in progress`);
    if (run.status !== 'in_progress') {
      const sum = run.ledger.reduce((s, l) => s + l.amount, 0);
      if (sum !== -(run.cost ?? 0)) problems.push(`run ${run.id}: ledger sums to ${sum}, cost is ${run.cost}`);
    }
  }
  const orgs = await db.prisma.organization.findMany({
    select: {
      id: true,
      credits: true,
      creditLedger: { select: { amount: true } },
      pendingCredits: { select: { amount: true } },
    },
  });
  for (const org of orgs) {
    const sum = org.creditLedger.reduce((s, l) => s + l.amount, 0);
    // The balance: the organization's row plus what settled runs gave back that no reservation applied yet.
    const balance = org.credits + org.pendingCredits.reduce((s, p) => s + p.amount, 0);
    if (sum !== balance) problems.push(`organization ${org.id}: balance ${balance}, ledger ${sum}`);
    if (org.credits < 0) problems.push(`organization ${org.id}: negative balance row ${org.credits}`);
    if (org.pendingCredits.some((p) => p.amount <= 0)) problems.push(`organization ${org.id}: a pending amount ≤ 0`);
  }
  const twice = await db.pool.query<{ storage_key: string; n: number }>(
    `SELECT storage_key, count(*)::int AS n FROM assets WHERE run_id IS NOT NULL GROUP BY storage_key HAVING count(*) > 1`,
  );
  for (const row of twice.rows) problems.push(`asset file ${row.storage_key} registered ${row.n} times`);
  return problems;
}
