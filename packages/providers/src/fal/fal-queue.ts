import type { FalClient } from '@fal-ai/client';
import type { NodeContext, ProviderJobRef } from '@weft/nodes';
import { abandonJob, nothingToCancel } from '../job-cancels';
import { abortable, sleep } from './fal-wait';

// One node attempt's request on fal's queue: submitted once, remembered
// before it is polled, so a worker taking the attempt over after a crash
// polls the same request instead of paying for another; cancelled when the
// node is (run cancelled, or its timeout passed).

/** How long a cancelled node waits for fal to take the cancel: best effort, never long (the sweep retries one that failed). */
const CANCEL_WAIT_MS = 2_000;

export interface QueueSettings {
  /** Between two status polls. */
  pollIntervalMs: number;
}

export interface QueuedRequest {
  app: string;
  requestId: string;
}

/** The request this attempt submitted earlier, or a new one of `input` to `app`. */
export async function submitOnce(
  ctx: NodeContext,
  client: FalClient,
  app: string,
  input: () => Promise<Record<string, unknown>>,
): Promise<QueuedRequest> {
  const earlier = await ctx.providerJobs.recall();
  const recorded = earlier?.provider === 'fal' ? recordedRequest(earlier) : undefined;
  if (recorded) return recorded;
  const body = await input();
  const queued = await abortable(client.queue.submit(app, { input: body, abortSignal: ctx.signal }), ctx.signal);
  await ctx.providerJobs.remember({ provider: 'fal', id: queued.request_id, state: { app } });
  return { app, requestId: queued.request_id };
}

/** Polls the request until fal says it is done; cancels it on fal when the node's signal aborts. */
export async function completion(
  ctx: NodeContext,
  client: FalClient,
  request: QueuedRequest,
  settings: QueueSettings,
): Promise<void> {
  try {
    for (;;) {
      // The SDK's retries sleep without the signal: the node stops waiting for them.
      const status = await abortable(
        client.queue.status(request.app, { requestId: request.requestId, abortSignal: ctx.signal }),
        ctx.signal,
      );
      if (status.status === 'COMPLETED') return;
      await sleep(settings.pollIntervalMs, ctx.signal);
    }
  } catch (err) {
    if (ctx.signal.aborted) await abandonJob(ctx, (signal) => cancelRequest(client, request, signal), CANCEL_WAIT_MS);
    throw err;
  }
}

/** Cancels a queued request on fal; one that completed (400 ALREADY_COMPLETED) or is unknown has nothing left to cancel. */
export async function cancelRequest(client: FalClient, request: QueuedRequest, signal: AbortSignal): Promise<void> {
  try {
    await abortable(client.queue.cancel(request.app, { requestId: request.requestId, abortSignal: signal }), signal);
  } catch (err) {
    if (!nothingToCancel(err)) throw err;
  }
}

/** The request a provider_jobs row records (submitOnce keeps the app in its state); undefined when it names none. */
export function recordedRequest(job: ProviderJobRef): QueuedRequest | undefined {
  return typeof job.state?.app === 'string' ? { app: job.state.app, requestId: job.id } : undefined;
}
