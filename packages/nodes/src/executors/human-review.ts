import { NodeFailure, type NodeExecutor } from '../types';
import { asList, assetIds, isAssetValue, single } from '../values';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';

/**
 * Proposes the value at `inputs.value` for review: `{asset_ids}` for media,
 * `{prompts}` for text. The engine parks the run on it; the reviewer's
 * approved output becomes this node's output.
 */
export const humanReview: NodeExecutor = {
  type: 'human_review',
  kind: 'light',
  instant: true,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  async execute(ctx) {
    const input = single(ctx, 'value');
    if (isAssetValue(input)) {
      return { output: input, review: { asset_ids: assetIds(ctx, input) } };
    }
    const prompts = asList(input).map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    if (prompts.length === 0) throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' has nothing to review`);
    return { output: input, review: { prompts } };
  },
};
