import { NodeFailure, type NodeContext, type NodeResult } from '@weft/nodes';
import { setTimeout as sleep } from 'node:timers/promises';
import type OpenAI from 'openai';
import { metered, type Capability } from '../capability';
import { abandonJob, nothingToCancel } from '../job-cancels';
import { storeResultBytes } from '../results';
import { inputImage, pngUpload, promptText } from './image-inputs';
import { openAIFailure } from './openai-failures';
import { ratioOf, sizeDimensions, videoSize } from './openai-sizes';

// video_generation through the videos API: a job created once per node
// attempt, polled until it is completed or failed, then downloaded. The job's
// id is remembered before the first poll, so that a worker taking the attempt
// over resumes that job instead of paying for another.

type Video = OpenAI.Videos.Video;
type CreateBody = OpenAI.Videos.VideoCreateParams;

interface VideoParams {
  duration?: number;
  aspect_ratio?: string;
  options?: Record<string, unknown>;
}

const PROVIDER = 'openai';
/** The lengths the videos API makes. */
const SECONDS: readonly OpenAI.Videos.VideoSeconds[] = ['4', '8', '12'];
/** A deleted job is no longer paid for; the node ends without waiting longer than this for the answer (the sweep retries one that failed). */
const CANCEL_WAIT_MS = 5_000;

const nearestSeconds = (duration: number) =>
  SECONDS.reduce((best, s) => (Math.abs(Number(s) - duration) < Math.abs(Number(best) - duration) ? s : best));

async function createBody(ctx: NodeContext, model: string): Promise<CreateBody> {
  const { duration, aspect_ratio, options } = ctx.params as VideoParams;
  const prompt = promptText(ctx);
  const image = ctx.inputs.image !== undefined ? await inputImage(ctx, 'image') : undefined;
  // The shape asked for, else the first frame's: the API wants the reference image at the video's size.
  const ratio = aspect_ratio ? ratioOf(ctx, aspect_ratio) : image ? image.width / image.height : undefined;
  const size = (options?.size as string | undefined) ?? (ratio !== undefined ? videoSize(ratio) : undefined);
  let input_reference: CreateBody['input_reference'];
  if (image) {
    const { width, height } = sizeDimensions(size ?? videoSize(1));
    const frame = await image.opened.pipeline().resize(width, height, { fit: 'cover' }).png().toBuffer();
    input_reference = await pngUpload(frame, 'first-frame');
  }
  return {
    // Provider-specific settings first: the node's own params win over them.
    ...(options ?? {}),
    model,
    prompt,
    ...(duration !== undefined ? { seconds: nearestSeconds(duration) } : {}),
    ...(size ? { size: size as OpenAI.Videos.VideoSize } : {}),
    ...(input_reference ? { input_reference } : {}),
  };
}

/** A failed job as the run reports it: moderation is the content's fault, the rest the provider's. */
function jobFailure(ctx: NodeContext, video: Video): NodeFailure {
  const code = video.error?.code ?? '';
  const said = video.error?.message ? `: ${video.error.message.slice(0, 300)}` : '';
  if (/moderation|content_policy|safety/i.test(code)) {
    return new NodeFailure('content_policy', `Node '${ctx.nodeId}': the provider refused the content${said}`);
  }
  return new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider's video job failed${said}`);
}

/**
 * Deletes a video job no node follows any more: the videos API has no
 * cancel, and a deleted job is not finished (nor kept) for nothing. One the
 * API no longer knows has nothing left to delete.
 */
export async function deleteVideoJob(client: OpenAI, id: string, signal: AbortSignal): Promise<void> {
  try {
    await client.videos.delete(id, { signal, maxRetries: 0 });
  } catch (err) {
    if (!nothingToCancel(err)) throw err;
  }
}

/** video_generation through the videos job API, resumable across workers. */
export function openAIVideo(pollIntervalMs: number): Capability<OpenAI> {
  return {
    defaultModel: 'sora-2',
    async execute(ctx, call): Promise<NodeResult> {
      const failed = (err: unknown) => {
        throw openAIFailure(err, ctx.nodeId, call.credentialSource);
      };
      const retrieve = (id: string) => call.client.videos.retrieve(id, { signal: ctx.signal }).catch(failed);
      const known = await ctx.providerJobs.recall();
      let video: Video;
      if (known?.provider === PROVIDER) {
        video = await retrieve(known.id);
      } else {
        const body = await createBody(ctx, call.model);
        video = await call.client.videos.create(body, { signal: ctx.signal }).catch(failed);
        await ctx.providerJobs.remember({ provider: PROVIDER, id: video.id });
      }
      const id = video.id;
      try {
        while (video.status === 'queued' || video.status === 'in_progress') {
          await sleep(pollIntervalMs, undefined, { signal: ctx.signal });
          video = await retrieve(id);
        }
      } catch (err) {
        if (ctx.signal.aborted) {
          await abandonJob(ctx, (signal) => deleteVideoJob(call.client, id, signal), CANCEL_WAIT_MS);
        }
        throw err;
      }
      if (video.status === 'failed') throw jobFailure(ctx, video);
      if (video.status !== 'completed') {
        throw new NodeFailure('provider_error', `Node '${ctx.nodeId}': the provider's video job is '${video.status}'`);
      }
      const bytes = await call.client.videos
        .downloadContent(id, { variant: 'video' }, { signal: ctx.signal })
        .then(async (response) => Buffer.from(await response.arrayBuffer()))
        .catch(failed);
      const assetId = await storeResultBytes(ctx, bytes, 0, 'video');
      const seconds = Number(video.seconds) || 0;
      return { output: { type: 'videos', value: [assetId] }, ...metered(call, { seconds }) };
    },
  };
}
