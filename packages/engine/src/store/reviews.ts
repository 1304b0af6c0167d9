import type { ProposedOutput } from '@weft/contracts';
import type { PoolClient } from 'pg';
import { REVIEW, type ReviewStatus } from '@weft/dag';

export interface ReviewRow {
  node_id: string;
  status: ReviewStatus;
  proposed_output: ProposedOutput;
}

export async function readReview(client: PoolClient, runId: string, reviewId: string): Promise<ReviewRow | undefined> {
  const { rows } = await client.query<ReviewRow>(
    'SELECT node_id, status, proposed_output FROM reviews WHERE id = $1 AND run_id = $2',
    [reviewId, runId],
  );
  return rows[0];
}

/** Records an approval with exactly the reviewer's output; only a pending review moves. */
export async function approveReview(client: PoolClient, reviewId: string, output: unknown): Promise<void> {
  await client.query(
    `UPDATE reviews SET status = '${REVIEW.approved}', output = $2, decided_at = now() WHERE id = $1 AND status = '${REVIEW.pending}'`,
    [reviewId, JSON.stringify(output)],
  );
}

export async function retryReview(client: PoolClient, reviewId: string): Promise<void> {
  await client.query(
    `UPDATE reviews SET status = '${REVIEW.retried}', decided_at = now() WHERE id = $1 AND status = '${REVIEW.pending}'`,
    [reviewId],
  );
}
