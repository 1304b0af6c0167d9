import type { AppInputType, DataType, NodeType } from '@weft/contracts';
import { defineNode } from '../definition';
import { noParams } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';

// image_input, video_input, audio_input, file_input: the run input's asset ids.
// Existence, access and media type are checked when the run is created (the
// caller gets a 4xx there); here the value is passed on as the typed list.

function assetInput(type: NodeType, runInput: AppInputType, dataType: DataType, what: string) {
  return defineNode({
    type,
    description: `${what} given when the run is created, as {asset_ids: [...]}; checked to exist, be readable and be of the right media type.`,
    serving: 'built_in',
    runInput,
    inputs: {},
    params: noParams,
    output: { kinds: [dataType] },
    lane: 'light',
    rerun: 'same',
    defaultTimeoutMs: 5_000,
    maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
    estimateCost: () => 0,
    async execute(ctx) {
      const given = ctx.runInput as { asset_ids?: unknown } | undefined;
      if (given === undefined) return { output: { type: dataType, value: [] } };
      const ids = given.asset_ids;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
        throw new NodeFailure('invalid_input', `Input '${ctx.nodeId}' must be {asset_ids: [...]}`);
      }
      return { output: { type: dataType, value: ids } };
    },
  });
}

export const imageInput = assetInput('image_input', 'image', 'images', 'Images');
export const videoInput = assetInput('video_input', 'video', 'videos', 'Videos');
export const audioInput = assetInput('audio_input', 'audio', 'audio', 'Audio files');
export const fileInput = assetInput('file_input', 'file', 'files', 'Files');
