import { AUDIO_FORMATS } from '@weft/media';
import path from 'node:path';
import { z } from 'zod';
import { defineNode } from '../definition';
import { knownMetadata } from '../known-metadata';
import { inputArgs, openSource, runOnSources, sourceIds } from '../media-sources';
import { videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';

const PORT = 'video';

/** The audio track of a video. */
export const extractAudio = defineNode({
  type: 'extract_audio',
  description: 'The audio track of each video at `video`, as params.format mp3 or wav.',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: z.object({ format: z.enum(['mp3', 'wav']).default('mp3') }),
  output: { kinds: ['audio'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const format = AUDIO_FORMATS[ctx.params.format];
    const produced = await storeEach(ctx, sourceIds(ctx, PORT), async (id, index) => {
      const video = await openSource(ctx, PORT, id, 'video with sound');
      const output = path.join(await ctx.workDir(), `audio-${index}.${format.extension}`);
      const { duration } = video.probe;
      const args = [...inputArgs([video]), '-map', `0:${video.probe.audioStream}`, '-vn', '-sn', '-dn'];
      // Cut at the container's length: the last AAC frame of a video decodes
      // whole, past the end its edit list sets.
      const cut = duration !== undefined ? ['-t', String(duration)] : [];
      await runOnSources(ctx, [video], [...args, ...cut, ...format.args, output]);
      const { metadata } = video.probe;
      const sound = { sample_rate: metadata.sample_rate, channels: metadata.channels };
      return {
        path: output,
        contentType: format.contentType,
        mediaType: 'audio',
        extension: format.extension,
        metadata: knownMetadata({ codec: format.codec, duration, ...sound }),
      };
    });
    return { output: { type: 'audio', value: produced } };
  },
});
