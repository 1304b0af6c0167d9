import type { EngineCore } from '../engine-core';
import { claimDueCancels, settleCancel, type CancelOutcome, type DueCancel } from '../store/provider-job-cancels';

// A run that ends (cancelled, failed, timed out) while a node's provider job
// runs leaves that job running, and billing, at the provider unless someone
// cancels it. The worker executing the node does, at once (the adapters'
// abandonJob, @weft/providers), but none may be executing it: the worker died,
// or the run was cancelled while no worker ran and the one taking the node
// over skips it; or the provider was down when asked. So endRun marks the
// run's unfinished provider jobs due (provider_jobs.cancel_due_at), and every
// worker sweeps the due ones on a timer: each is cancelled through its
// adapter's `cancelJob`, with the credential its node would use, and the
// outcome recorded; a failed try is retried with backoff.

/** Jobs claimed per pass, cancelled at once. */
const BATCH = 50;
/** A claimed job no sweep settled (its worker died mid-pass) is due again after this. */
const CLAIM_LEASE_MS = 60_000;
/** One cancel call at most. */
const CANCEL_TIMEOUT_MS = 15_000;
/** Tries before giving up: with the backoff below, about three hours of them. */
export const MAX_CANCEL_ATTEMPTS = 20;

/** The wait before try `attempts + 1`: 2 s, doubling, at most ten minutes. */
export function cancelRetryDelayMs(attempts: number): number {
  return Math.min(2_000 * 2 ** (attempts - 1), 10 * 60_000);
}

export interface CancelSweepReport {
  canceled: number;
  retried: number;
  givenUp: number;
}

/** One pass of the sweep; safe in every worker at once (claims skip each other's rows). */
export async function cancelProviderJobs(core: EngineCore): Promise<CancelSweepReport> {
  const report: CancelSweepReport = { canceled: 0, retried: 0, givenUp: 0 };
  // A process without adapters cannot cancel anything: it leaves the jobs to one that can.
  if (!core.nodeRoutes?.cancelJob) return report;
  const due = await claimDueCancels(core.db.pool, BATCH, CLAIM_LEASE_MS);
  await Promise.all(
    due.map(async (row) => {
      const outcome = await cancelOne(core, row);
      const key = { runId: row.run_id, nodeId: row.node_id, attempt: row.attempt };
      await settleCancel(core.db.pool, key, outcome);
      const facts = { ...key, provider: row.provider, providerJobId: row.job_id, attempts: row.cancel_attempts };
      if (outcome.kind === 'canceled') {
        report.canceled++;
        core.logger.info(facts, 'provider job of an ended run cancelled');
      } else if (outcome.kind === 'retry') {
        report.retried++;
        core.logger.warn({ ...facts, err: outcome.error }, 'cancelling a provider job failed; retrying later');
      } else {
        report.givenUp++;
        core.logger.warn({ ...facts, err: outcome.error }, 'gave up cancelling a provider job');
      }
    }),
  );
  return report;
}

async function cancelOne(core: EngineCore, row: DueCancel): Promise<CancelOutcome> {
  try {
    const version = await core.versions.version(row.agent_version_id);
    const credentialId = version.graph.node(row.node_id)?.params?.credential_id;
    const job = { provider: row.provider, id: row.job_id, ...(row.state ? { state: row.state } : {}) };
    const owner = {
      organizationId: row.organization_id,
      ...(typeof credentialId === 'string' ? { credentialId } : {}),
    };
    const done = await core.nodeRoutes!.cancelJob!(job, owner, AbortSignal.timeout(CANCEL_TIMEOUT_MS));
    if (!done) return { kind: 'given_up', error: `this deployment cannot cancel ${row.provider} jobs` };
    return { kind: 'canceled' };
  } catch (err) {
    const error = ((err as Error).message ?? String(err)).slice(0, 500);
    if (row.cancel_attempts >= MAX_CANCEL_ATTEMPTS) return { kind: 'given_up', error };
    return { kind: 'retry', retryInMs: cancelRetryDelayMs(row.cancel_attempts), error };
  }
}
