import { NODE, RUN } from '@weft/dag';
import type { ProviderJobRef, ProviderJobs, ProviderUsage } from '@weft/nodes';
import type { Pool, PoolClient } from 'pg';
import { TransientError } from '@weft/errors';

export interface AttemptKey {
  runId: string;
  nodeId: string;
  attempt: number;
}

async function dbCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new TransientError(`${what} failed: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * How long after its run ended a provider job is left to the worker executing
 * its node, which cancels it at once (and records it) when the run's cancel
 * message reaches it; the sweep (end-run/cancel-provider-jobs.ts) cancels the
 * jobs still not cancelled then. Above the adapters' own cancel timeouts (5 s).
 */
export const LIVE_CANCEL_GRACE_MS = 10_000;

/**
 * The provider job of one node attempt, in PostgreSQL. The first job recorded
 * for an attempt stays: a second execution of the same attempt (a worker
 * taking it over) recalls it and resumes polling instead of submitting again.
 * A job recorded once its run has ended (the run was cancelled between the
 * submission and this) is due for the sweep's cancel at once: the share lock
 * on the run row orders the insert with endRun's marking of the run's jobs
 * (under the run's lock), so one of the two always sees the other.
 */
export function providerJobs(pool: Pool, key: AttemptKey): ProviderJobs {
  return {
    recall: () =>
      dbCall('reading the provider job', async () => {
        const { rows } = await pool.query<{ provider: string; job_id: string; state: Record<string, unknown> | null }>({
          name: 'engine_provider_job_recall_v1',
          text: 'SELECT provider, job_id, state FROM provider_jobs WHERE run_id = $1 AND node_id = $2 AND attempt = $3',
          values: [key.runId, key.nodeId, key.attempt],
        });
        const row = rows[0];
        if (!row) return undefined;
        const job: ProviderJobRef = { provider: row.provider, id: row.job_id };
        if (row.state) job.state = row.state;
        return job;
      }),
    remember: (job) =>
      dbCall('recording the provider job', async () => {
        await pool.query({
          name: 'engine_provider_job_remember_v2',
          text: `INSERT INTO provider_jobs (run_id, node_id, attempt, provider, job_id, state, cancel_due_at)
                 SELECT $1, $2, $3, $4, $5, $6,
                        CASE WHEN r.status = '${RUN.inProgress}' THEN NULL
                             ELSE now() + $7 * interval '1 millisecond' END
                   FROM (SELECT status FROM runs WHERE id = $1 FOR SHARE) r
                 ON CONFLICT DO NOTHING`,
          values: [key.runId, key.nodeId, key.attempt, job.provider, job.id, job.state ?? null, LIVE_CANCEL_GRACE_MS],
        });
      }),
    canceled: () =>
      dbCall('recording the provider job cancelled', async () => {
        await pool.query({
          name: 'engine_provider_job_canceled_v1',
          text: `UPDATE provider_jobs SET canceled_at = now(), cancel_due_at = NULL
                  WHERE run_id = $1 AND node_id = $2 AND attempt = $3 AND canceled_at IS NULL`,
          values: [key.runId, key.nodeId, key.attempt],
        });
      }),
  };
}

/**
 * Marks for the sweep's cancel the provider jobs of a run that is ending
 * (endRun, under the run's lock, before the open nodes are closed): those of
 * nodes still running at their job's attempt, and of the node whose failure
 * ends the run, unless already cancelled. Completed attempts, and those waiting
 * for a review, have no job left running at their provider.
 */
export async function markProviderJobsToCancel(client: Pick<PoolClient, 'query'>, runId: string): Promise<void> {
  await client.query({
    name: 'engine_provider_jobs_to_cancel_v1',
    text: `UPDATE provider_jobs pj SET cancel_due_at = now() + $2 * interval '1 millisecond'
             FROM node_executions ne
            WHERE pj.run_id = $1 AND pj.canceled_at IS NULL AND pj.cancel_due_at IS NULL
              AND ne.run_id = pj.run_id AND ne.node_id = pj.node_id AND ne.attempt = pj.attempt
              AND ne.status IN ('${NODE.running}', '${NODE.failed}')`,
    values: [runId, LIVE_CANCEL_GRACE_MS],
  });
}

/** Records what an attempt was charged and the usage it was priced from (once per attempt). */
export async function recordCharge(
  pool: Pool,
  key: AttemptKey & { nodeType: string },
  usage: ProviderUsage,
  credits: number,
): Promise<void> {
  await dbCall('recording the node charge', () =>
    pool.query({
      name: 'engine_node_charge_v1',
      text: `INSERT INTO node_charges (run_id, node_id, attempt, node_type, provider, model, usage, credits)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
      values: [key.runId, key.nodeId, key.attempt, key.nodeType, usage.provider, usage.model, usage.units, credits],
    }),
  );
}
