import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineNode } from '../definition';
import { seconds } from '../media-params';
import {
  inputArgs,
  openSource,
  runOnSources,
  secondsText,
  sourceFailure,
  sourceIds,
  type MediaSource,
} from '../media-sources';
import { storeEach } from '../store-each';
import { videoPort } from '../ports';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import type { NodeContext } from '../types';

const PORT = 'video';

/** How far before the end decoding starts for `last`. */
const LAST_WINDOW_S = 1;

type At = number | 'first' | 'last';

/**
 * Decodes the video track from `seek` and writes frames to `out` as PNG:
 * one, or (`untilEnd`) every one, each overwriting the last. Whether a frame
 * was written: none when the seek lands past the last frame.
 */
async function writeFrame(
  ctx: NodeContext,
  source: MediaSource,
  seek: number | undefined,
  untilEnd: boolean,
  out: string,
): Promise<boolean> {
  await runOnSources(
    ctx,
    [source],
    [
      ...inputArgs([source], () => (seek ? ['-ss', String(seek)] : [])),
      '-map',
      `0:${source.video!.stream}`,
      ...(untilEnd ? ['-update', '1'] : ['-frames:v', '1']),
      '-c:v',
      'png',
      '-f',
      'image2',
      out,
    ],
  );
  return fs.existsSync(out) && fs.statSync(out).size > 0;
}

/** The PNG of the frame `at` asks for, written to `out`; a failure naming the port when there is none. */
async function extract(ctx: NodeContext, source: MediaSource, at: At, out: string): Promise<void> {
  const { duration } = source;
  if (typeof at === 'number' && duration !== undefined && at >= duration) {
    throw sourceFailure(
      ctx,
      PORT,
      source.id,
      `lasts ${secondsText(duration)}: params.at (${secondsText(at)}) is past its end`,
    );
  }
  // A time between the last frame and the end shows the last frame, as does `last`.
  let found = at !== 'last' && (await writeFrame(ctx, source, at === 'first' ? undefined : at, false, out));
  if (!found && at !== 'first') {
    // Only the end is decoded; all of it when the sound outlasts the picture and the end has no frame.
    const end = at === 'last' ? duration : at;
    const from = end !== undefined ? Math.max(0, end - LAST_WINDOW_S) : 0;
    found =
      (from > 0 && (await writeFrame(ctx, source, from, true, out))) || (await writeFrame(ctx, source, 0, true, out));
  }
  if (!found) {
    throw sourceFailure(
      ctx,
      PORT,
      source.id,
      at === 'first' || at === 'last' ? 'has no frame' : `has no frame at ${secondsText(at)}`,
    );
  }
}

/** One frame of a video as a PNG. */
export const extractVideoFrame = defineNode({
  type: 'extract_video_frame',
  description: 'One frame of each video at `video` as a PNG: params.at seconds, `first` or `last`.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({
    at: z
      .union([seconds, z.enum(['first', 'last'])])
      .default('first')
      .describe('Seconds, `first` or `last`'),
  }),
  output: { kinds: ['images'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: 2 * 60_000,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const ids = sourceIds(ctx, PORT);
    const dir = await ctx.workDir();
    const produced = await storeEach(ctx, ids, async (id, index) => {
      const source = await openSource(ctx, PORT, id, 'video');
      const out = path.join(dir, `frame-${index}.png`);
      await extract(ctx, source, ctx.params.at, out);
      const { width, height } = source.video!;
      return {
        path: out,
        contentType: 'image/png',
        mediaType: 'image',
        extension: 'png',
        metadata: { width, height, format: 'png' },
      };
    });
    return { output: { type: 'images', value: produced } };
  },
});
