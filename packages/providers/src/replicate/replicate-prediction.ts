import { setTimeout as sleep } from 'node:timers/promises';
import { NodeFailure, type NodeContext } from '@weft/nodes';
import type Replicate from 'replicate';
import type { Prediction } from 'replicate';
import type { ProviderCall } from '../capability';
import { abandonJob, nothingToCancel } from '../job-cancels';
import { replicateFailure } from './replicate-failures';

// One prediction of a node attempt, submitted once: a worker taking the
// attempt over after a crash finds the prediction remembered and polls it
// instead of creating another (which Replicate would run and bill again).

export const PROVIDER = 'replicate';

export interface PollPolicy {
  /** The first wait between polls, growing by half at each poll up to `maxIntervalMs`. */
  intervalMs: number;
  maxIntervalMs: number;
}

export const DEFAULT_POLL: PollPolicy = { intervalMs: 500, maxIntervalMs: 2000 };

/** How long an abandoned prediction's cancel may take before the abort goes on (the sweep retries one that failed). */
const CANCEL_TIMEOUT_MS = 3000;

/** `model` as predictions.create takes it: `owner/name` (official models) or `owner/name:version`. */
export function modelRef(nodeId: string, model: string): { model: string } | { version: string } {
  const match = /^([\w.-]+\/[\w.-]+)(?::([\w.-]+))?$/.exec(model);
  if (!match) {
    throw new NodeFailure(
      'invalid_input',
      `Node '${nodeId}': params.model '${model}' is not a Replicate model (owner/name or owner/name:version)`,
    );
  }
  return match[2] ? { version: match[2] } : { model: match[1]! };
}

const ended = (p: Prediction) => p.status !== 'starting' && p.status !== 'processing';

/** What Replicate said of a failed prediction. */
function errorText(prediction: Prediction): string {
  const error = prediction.error;
  const text = typeof error === 'string' ? error : error === undefined || error === null ? '' : JSON.stringify(error);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Replicate fails a prediction whose output its safety checker flagged, saying so in `error`. */
const FLAGGED = /nsfw|safety|flagged|content policy|sensitive/i;

/**
 * The ended prediction of this attempt: the one remembered, else one created
 * with `input` (remembered before it is polled). Cancelled at the provider
 * when the node is (cancel or timeout), best-effort.
 */
export async function predict(
  ctx: NodeContext,
  call: ProviderCall<Replicate>,
  input: () => Promise<Record<string, unknown>>,
  options: { wait?: number; poll: PollPolicy },
): Promise<Prediction> {
  const fail = (err: unknown) => replicateFailure(err, ctx.nodeId, call.credentialSource);
  const client = call.client;
  let prediction: Prediction | undefined;
  const remembered = await ctx.providerJobs.recall();
  let id = remembered?.provider === PROVIDER ? remembered.id : undefined;
  if (id === undefined) {
    const ref = modelRef(ctx.nodeId, call.model);
    const body = await input();
    prediction = await client.predictions
      .create({ ...ref, input: body, ...(options.wait ? { wait: options.wait } : {}), signal: ctx.signal })
      .catch((err: unknown) => {
        throw fail(err);
      });
    id = prediction.id;
    // Unremembered, a retry of this attempt would create a second prediction: this one must stop.
    await ctx.providerJobs.remember({ provider: PROVIDER, id }).catch(async (err: unknown) => {
      await cancelPrediction(client, prediction!.id, AbortSignal.timeout(CANCEL_TIMEOUT_MS)).catch(() => undefined);
      throw err;
    });
  }
  try {
    let interval = options.poll.intervalMs;
    while (!prediction || !ended(prediction)) {
      if (prediction) {
        await sleep(interval, undefined, { signal: ctx.signal });
        interval = Math.min(options.poll.maxIntervalMs, interval * 1.5);
      }
      prediction = await client.predictions.get(id, { signal: ctx.signal });
    }
  } catch (err) {
    // Cancelled, timed out, or no longer followed: the prediction would run (and bill) for nothing.
    const followed = id;
    await abandonJob(ctx, (signal) => cancelPrediction(client, followed, signal), CANCEL_TIMEOUT_MS);
    throw fail(err);
  }
  if (prediction.status === 'succeeded') return prediction;
  if (prediction.status === 'failed') {
    const said = errorText(prediction);
    throw new NodeFailure(
      FLAGGED.test(said) ? 'content_policy' : 'provider_error',
      `Node '${ctx.nodeId}': the prediction ${id} failed: ${said || 'no reason given'}`,
    );
  }
  throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the prediction ${id} was ${prediction.status}`);
}

/**
 * Cancels a prediction no one waits for any more, so that it stops running
 * (and costing); one Replicate does not know, or that has ended, has nothing
 * left to cancel.
 */
export async function cancelPrediction(client: Replicate, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.predictions.cancel(id, { signal });
  } catch (err) {
    if (!nothingToCancel(err)) throw err;
  }
}
