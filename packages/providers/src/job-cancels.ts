import type { NodeContext } from '@weft/nodes';

// How a provider job that no node follows any more gets cancelled. The node
// executing it cancels it at once when it is cancelled or times out
// (`abandonJob`), and records that the provider took it; a cancel that could
// not be made then (the worker died, the provider was down) is made by the
// workers' sweep of ended runs through the adapter's `cancelJob`.

/** The HTTP status an SDK's error carries (its own property name differs from one SDK to the next). */
function statusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { status?: unknown; statusCode?: unknown; response?: { status?: unknown } };
  const status = e.status ?? e.statusCode ?? e.response?.status;
  return typeof status === 'number' ? status : undefined;
}

/**
 * Whether a refused cancel means there is nothing left to cancel: the job is
 * unknown (404, 410) or over (400, 409: fal's ALREADY_COMPLETED). A refusal of
 * the credentials (401, 403), a throttle (429) or a server error may pass
 * later, and is retried.
 */
export function nothingToCancel(err: unknown): boolean {
  const status = statusOf(err);
  return status === 400 || status === 404 || status === 409 || status === 410;
}

/**
 * Cancels the job of a node that was cancelled or timed out, taking at most
 * `timeoutMs` (the node has ended), and records that the provider took it.
 * Best-effort: a cancel that fails is left to the sweep, which retries it.
 */
export async function abandonJob(
  ctx: NodeContext,
  cancel: (signal: AbortSignal) => Promise<void>,
  timeoutMs: number,
): Promise<void> {
  try {
    await cancel(AbortSignal.timeout(timeoutMs));
  } catch {
    return;
  }
  await ctx.providerJobs.canceled().catch(() => undefined);
}
