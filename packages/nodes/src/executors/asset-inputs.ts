import type { DataType, NodeType } from '@weft/contracts';
import { NodeFailure, type NodeExecutor } from '../types';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

// image_input, video_input, audio_input, file_input: the run input's asset ids.
// Existence, access and media type are checked when the run is created (the
// caller gets a 4xx there); here the value is passed on as the typed list.

function assetInput(type: NodeType, dataType: DataType): NodeExecutor {
  return {
    type,
    kind: 'light',
    defaultTimeoutMs: 5_000,
    maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
    async execute(ctx) {
      const given = ctx.runInput as { asset_ids?: unknown } | undefined;
      if (given === undefined) return { output: { type: dataType, value: [] } };
      const ids = given.asset_ids;
      if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
        throw new NodeFailure('invalid_input', `Input '${ctx.nodeId}' must be {asset_ids: [...]}`);
      }
      return { output: { type: dataType, value: ids } };
    },
  };
}

export const imageInput = assetInput('image_input', 'images');
export const videoInput = assetInput('video_input', 'videos');
export const audioInput = assetInput('audio_input', 'audio');
export const fileInput = assetInput('file_input', 'files');
