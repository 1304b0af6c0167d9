import type { ProviderJobRef, ProviderJobs, ProviderUsage } from '@weft/nodes';
import type { Pool } from 'pg';
import { TransientError } from '../transient';

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
 * The provider job of one node attempt, in PostgreSQL. The first job recorded
 * for an attempt stays: a second execution of the same attempt (a worker
 * taking it over) recalls it and resumes polling instead of submitting again.
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
          name: 'engine_provider_job_remember_v1',
          text: `INSERT INTO provider_jobs (run_id, node_id, attempt, provider, job_id, state)
                 VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
          values: [key.runId, key.nodeId, key.attempt, job.provider, job.id, job.state ?? null],
        });
      }),
  };
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
