import type { Pool } from 'pg';
import type { AttemptKey } from './provider-jobs';

// The sweep's statements over provider_jobs: the jobs due for a cancel at
// their provider (cancel_due_at, set when their run ended), claimed a batch
// at a time so that the workers sweeping at once never take the same one,
// and the outcome of each try.

/** A provider job due for a cancel, with what choosing its credential needs. */
export interface DueCancel {
  run_id: string;
  node_id: string;
  attempt: number;
  provider: string;
  job_id: string;
  state: Record<string, unknown> | null;
  /** Tries so far, this one included. */
  cancel_attempts: number;
  organization_id: string;
  agent_version_id: string;
}

/**
 * Claims up to `limit` due cancels, oldest due first: each is pushed `leaseMs`
 * ahead (so another sweep leaves it, and the next one takes it again if this
 * one died) and its try is counted.
 */
export async function claimDueCancels(pool: Pool, limit: number, leaseMs: number): Promise<DueCancel[]> {
  const { rows } = await pool.query<DueCancel>({
    name: 'engine_claim_due_cancels_v1',
    text: `WITH due AS (
             SELECT run_id, node_id, attempt FROM provider_jobs
              WHERE cancel_due_at <= now()
              ORDER BY cancel_due_at LIMIT $1
              FOR UPDATE SKIP LOCKED
           )
           UPDATE provider_jobs pj
              SET cancel_due_at = now() + $2 * interval '1 millisecond', cancel_attempts = pj.cancel_attempts + 1
             FROM due JOIN runs r ON r.id = due.run_id
            WHERE pj.run_id = due.run_id AND pj.node_id = due.node_id AND pj.attempt = due.attempt
        RETURNING pj.run_id, pj.node_id, pj.attempt, pj.provider, pj.job_id, pj.state, pj.cancel_attempts,
                  r.organization_id, r.agent_version_id`,
    values: [limit, leaseMs],
  });
  return rows;
}

/** What came of one try. */
export type CancelOutcome =
  /** The provider took the cancel, or had nothing left to cancel. */
  | { kind: 'canceled' }
  /** Failed; tried again after `retryInMs`. */
  | { kind: 'retry'; retryInMs: number; error: string }
  /** No more tries: it cannot be cancelled from here, or every try failed. */
  | { kind: 'given_up'; error: string };

export async function settleCancel(pool: Pool, key: AttemptKey, outcome: CancelOutcome): Promise<void> {
  await pool.query({
    name: 'engine_settle_cancel_v1',
    text: `UPDATE provider_jobs
              SET canceled_at = CASE WHEN $4 THEN now() ELSE canceled_at END,
                  cancel_due_at = CASE WHEN $5::int IS NULL THEN NULL ELSE now() + $5 * interval '1 millisecond' END,
                  cancel_error = $6
            WHERE run_id = $1 AND node_id = $2 AND attempt = $3`,
    values: [
      key.runId,
      key.nodeId,
      key.attempt,
      outcome.kind === 'canceled',
      outcome.kind === 'retry' ? outcome.retryInMs : null,
      outcome.kind === 'canceled' ? null : outcome.error,
    ],
  });
}
