import { videoContainerFor } from '@weft/media';
import path from 'node:path';
import { defineNode } from '../definition';
import { knownMetadata } from '../known-metadata';
import { inputArgs, openSource, runOnSources, sourceIds } from '../media-sources';
import { noParams, videoPort } from '../ports';
import { storeEach } from '../store-each';
import { MEDIA_MAX_TIMEOUT_MS } from '../timeouts';

const PORT = 'video';

/** A video without its sound. */
export const removeAudio = defineNode({
  type: 'remove_audio',
  description: 'Each video at `video` without sound (the video stream copied, not re-encoded).',
  serving: 'built_in',
  inputs: { video: videoPort('The videos') },
  params: noParams,
  output: { kinds: ['videos'] },
  lane: 'heavy',
  rerun: 'same',
  defaultTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  maxTimeoutMs: MEDIA_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const produced = await storeEach(ctx, sourceIds(ctx, PORT), async (id, index) => {
      const video = await openSource(ctx, PORT, id, 'video');
      const container = videoContainerFor(video.info.extension);
      const output = path.join(await ctx.workDir(), `silent-${index}.${container.extension}`);
      await runOnSources(
        ctx,
        [video],
        [
          ...inputArgs([video]),
          '-map',
          `0:${video.probe.videoStream}`,
          '-c:v',
          'copy',
          '-an',
          '-sn',
          '-dn',
          ...container.muxer,
          output,
        ],
      );
      const { width, height, codec, frame_rate } = video.probe.metadata;
      return {
        path: output,
        contentType: container.contentType,
        mediaType: 'video',
        extension: container.extension,
        metadata: knownMetadata({ width, height, codec, frame_rate, duration: video.probe.duration }),
      };
    });
    return { output: { type: 'videos', value: produced } };
  },
});
