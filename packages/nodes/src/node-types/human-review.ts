import { ANY_KIND, defineNode } from '../definition';
import { noParams } from '../ports';
import { QUICK_MAX_TIMEOUT_MS } from '../timeouts';
import { NodeFailure } from '../types';
import { asList, assetIds, isAssetValue, single } from '../values';

/**
 * Proposes the value at `inputs.value` for review: `{asset_ids}` for media,
 * `{prompts}` for text. The engine parks the run on it; the reviewer's
 * approved output becomes this node's output.
 */
export const humanReview = defineNode({
  type: 'human_review',
  description:
    'Pauses the run and proposes the value at `value` for review; approve continues with the reviewer’s output, ' +
    'retry re-runs what can change upstream and proposes again.',
  serving: 'built_in',
  inputs: { value: { accepts: ANY_KIND, required: true, many: false, description: 'What the reviewer sees' } },
  params: noParams,
  output: { sameAs: 'value' },
  lane: 'light',
  instant: true,
  rerun: 'reviewed',
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: QUICK_MAX_TIMEOUT_MS,
  estimateCost: () => 0,
  async execute(ctx) {
    const input = single(ctx, 'value');
    if (isAssetValue(input)) {
      return { output: input, review: { asset_ids: assetIds(ctx, input) } };
    }
    const prompts = asList(input).map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
    if (prompts.length === 0) throw new NodeFailure('invalid_input', `Node '${ctx.nodeId}' has nothing to review`);
    return { output: input, review: { prompts } };
  },
});
