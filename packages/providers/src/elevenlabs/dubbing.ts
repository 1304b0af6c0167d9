import type { ElevenLabs, ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import { setTimeout as sleep } from 'node:timers/promises';
import { metered, type Capability } from '../capability';
import { abandonJob, nothingToCancel } from '../job-cancels';
import { storeAnswerFile } from './answer-file';
import { sdk, type ElevenLabsCall } from './elevenlabs-call';
import { sourceMedia } from './source-media';

// translate_audio and translate_video through ElevenLabs dubbing: a long job
// (minutes) that is created once per node attempt and polled until dubbed. Its
// id is remembered before polling, so a worker taking the attempt over after a
// crash polls the same job instead of paying for a second one.

const PROVIDER = 'elevenlabs';
/** Polls slow down to this: a dubbing takes minutes, and every poll is a request against the key's rate. */
const MAX_POLL_MS = 15_000;
/** Cancelling the job when the node is cancelled is best-effort, and must not hold the worker long (the sweep retries one that failed). */
const CANCEL_TIMEOUT_MS = 5_000;

export interface DubbingSettings {
  /** The first wait between polls; later ones double, up to MAX_POLL_MS. */
  pollIntervalMs: number;
}

/** The dubbing once ElevenLabs says it is dubbed; a failure when it says failed. */
async function dubbed(
  ctx: NodeContext,
  call: ElevenLabsCall,
  id: string,
  settings: DubbingSettings,
): Promise<ElevenLabs.DubbingMetadataResponse> {
  for (let polls = 0; ; polls++) {
    const job = await sdk(ctx, call, (options) => call.client.dubbing.get(id, options));
    if (job.status === 'dubbed') return job;
    if (job.status === 'failed') {
      const why = job.error ? `: ${job.error.slice(0, 300)}` : '';
      throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider could not dub the file${why}`);
    }
    const wait = Math.min(settings.pollIntervalMs * 2 ** Math.min(polls, 4), MAX_POLL_MS);
    await sleep(wait, undefined, { signal: ctx.signal });
  }
}

/**
 * Deletes a dubbing project no node follows any more, so that it stops (and
 * stops costing); one ElevenLabs no longer knows has nothing left to delete.
 */
export async function deleteDubbing(client: ElevenLabsClient, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.dubbing.delete(id, { abortSignal: signal, maxRetries: 0 });
  } catch (err) {
    if (!nothingToCancel(err)) throw err;
  }
}

/** `translate_audio` (kind audio) or `translate_video` (kind video): dubbing into params.target_language. */
export function elevenLabsDubbing(kind: 'audio' | 'video', settings: DubbingSettings): Capability<ElevenLabsClient> {
  const port = kind;
  return {
    defaultModel: 'dubbing',
    async execute(ctx: NodeContext, call: ElevenLabsCall): Promise<NodeResult> {
      const target = (ctx.params as { target_language: string }).target_language;
      const source = await sourceMedia(ctx, port, [kind]);
      const earlier = await ctx.providerJobs.recall();
      let id = earlier?.provider === PROVIDER ? earlier.id : undefined;
      if (id === undefined) {
        const upload = await source.upload();
        const created = await sdk(ctx, call, (options) =>
          call.client.dubbing.create(
            { file: upload, targetLang: target, name: `weft ${ctx.runId} ${ctx.nodeId}` },
            options,
          ),
        );
        id = created.dubbingId;
        await ctx.providerJobs.remember({ provider: PROVIDER, id });
      }
      const dubbingId = id;
      try {
        const job = await dubbed(ctx, call, dubbingId, settings);
        const asset = await storeAnswerFile(ctx, call, 0, kind, (options) =>
          call.client.dubbing.audio.get(dubbingId, target, options),
        );
        const seconds = job.mediaMetadata?.duration ?? source.seconds;
        return {
          output: { type: kind === 'audio' ? 'audio' : 'videos', value: [asset] },
          ...metered(call, { seconds }),
        };
      } catch (err) {
        if (ctx.signal.aborted) {
          await abandonJob(ctx, (signal) => deleteDubbing(call.client, dubbingId, signal), CANCEL_TIMEOUT_MS);
        }
        throw err;
      }
    },
  };
}
