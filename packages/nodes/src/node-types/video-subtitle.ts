import { assScript, burnSubtitlesArgs, parseSubtitles, SubtitleSyntaxError, type Subtitles } from '@weft/media';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineNode } from '../definition';
import { knownMetadata } from '../known-metadata';
import { hexColor } from '../media-params';
import { openSource, runOnSources, sourceIds } from '../media-sources';
import { textPort, videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure, type NodeContext } from '../types';
import { asText, single } from '../values';

/** The subtitles at their port, parsed; a NodeFailure naming the port when they are empty or malformed. */
function readSubtitles(ctx: NodeContext): Subtitles {
  const text = asText(single(ctx, 'subtitles'));
  let subtitles: Subtitles;
  try {
    subtitles = parseSubtitles(text);
  } catch (err) {
    if (!(err instanceof SubtitleSyntaxError)) throw err;
    throw new NodeFailure(
      'invalid_input',
      `Node '${ctx.nodeId}': the subtitles at input 'subtitles' do not parse (${err.message})`,
    );
  }
  if (subtitles.format === 'plain' && subtitles.text === '') {
    throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}': the subtitles at input 'subtitles' are empty`);
  }
  return subtitles;
}

/** Burns subtitles into a video. */
export const videoSubtitle = defineNode({
  type: 'video_subtitle',
  description:
    'Burns the subtitles at `subtitles` (SRT or WebVTT text, or plain text shown for the whole video) into ' +
    'each video at `video`.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos'), subtitles: textPort('SRT, WebVTT or plain text') },
  params: z.object({
    font_size: z
      .number()
      .int()
      .min(6)
      .max(300)
      .optional()
      .describe("Pixels: the height of a line. Default: 5 % of the video's height, at most a twelfth of its width"),
    color: hexColor.default('#ffffff'),
    position: z.enum(['bottom', 'top']).default('bottom'),
  }),
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const subtitles = readSubtitles(ctx);
    const produced = await storeEach(ctx, sourceIds(ctx, 'video'), async (id, index) => {
      const video = await openSource(ctx, 'video', id, 'video');
      const { width, height } = video.video!;
      const { frame_rate, audio_codec } = video.probe.metadata;
      const dir = await ctx.workDir();
      const scriptPath = path.join(dir, `subtitles-${index}.ass`);
      const style = { fontSize: ctx.params.font_size, color: ctx.params.color, position: ctx.params.position };
      await fs.writeFile(scriptPath, assScript(subtitles, { ...style, width, height }));
      const output = path.join(dir, `subtitled-${index}.mp4`);
      const args = burnSubtitlesArgs({
        video: {
          url: video.url,
          stream: video.probe.videoStream!,
          ...(video.probe.audioStream !== undefined ? { audioStream: video.probe.audioStream } : {}),
          audioCodec: typeof audio_codec === 'string' ? audio_codec : null,
        },
        scriptPath,
        output,
      });
      await runOnSources(ctx, [video], args);
      return {
        path: output,
        contentType: 'video/mp4',
        mediaType: 'video',
        extension: 'mp4',
        // Odd sides were padded to even ones for H.264.
        metadata: knownMetadata({
          width: width + (width % 2),
          height: height + (height % 2),
          codec: 'h264',
          frame_rate,
          duration: video.probe.duration,
        }),
      };
    });
    return { output: { type: 'videos', value: produced } };
  },
});
