import type { FalClient } from '@fal-ai/client';
import type { NodeContext } from '@weft/nodes';
import { abortable, sleep } from './fal-wait';

// One node attempt's request on fal's queue: submitted once, remembered
// before it is polled, so a worker taking the attempt over after a crash
// polls the same request instead of paying for another; cancelled when the
// node is (run cancelled, or its timeout passed).

/** How long a cancelled node waits for fal to take the cancel: best effort, never long. */
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
  if (earlier?.provider === 'fal' && typeof earlier.state?.app === 'string') {
    return { app: earlier.state.app, requestId: earlier.id };
  }
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
    if (ctx.signal.aborted) {
      await client.queue
        .cancel(request.app, { requestId: request.requestId, abortSignal: AbortSignal.timeout(CANCEL_WAIT_MS) })
        .catch(() => undefined);
    }
    throw err;
  }
}
